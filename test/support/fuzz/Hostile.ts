import fc from "fast-check"

// Generators of hostile text, numbers and HTML for the fuzz tests, and helpers to mix them into plausible values.

/** `arbitrary` one time in `oneIn`, else `undefined` (absent). */
export const rarely = <A>(oneIn: number, arbitrary: fc.Arbitrary<A>): fc.Arbitrary<A | undefined> =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary })

/** `arbitrary`, except one time in `oneIn` `undefined` (absent). */
export const usually = <A>(oneIn: number, arbitrary: fc.Arbitrary<A>): fc.Arbitrary<A | undefined> =>
  fc.oneof({ weight: oneIn - 1, arbitrary }, { weight: 1, arbitrary: fc.constant(undefined) })

/** Pieces of text that have broken parsers, encoders and databases before. */
const nastyPieces = [
  "\u0000",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
  "\ufeff",
  "\uffff",
  "\u202e",
  "\u2028",
  "\u0085",
  "\u0007",
  "١٣",
  "𝟏",
  "é",
  "😀",
  "\r\n",
  "\n",
  "\t",
  "'",
  '"',
  "`",
  "<",
  ">",
  "&",
  "&amp;",
  "\\",
  "%",
  "%00",
  "%zz",
  "%ED%A0%80",
  "+",
  ";",
  "=",
  "?",
  "#",
  "/",
  "../",
  "//",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: text that template engines would expand, on purpose
  "${x}",
  "<script>alert(1)</script>",
  "javascript:alert(1)",
  "' OR 1=1 --",
  "NaN",
  "-0",
  "1e309",
  "null",
  "__proto__",
  "constructor"
]

/** Strings exactly at and around the bounds the contract names, and far past them. */
const longLengths = [64, 255, 256, 320, 500, 501, 1024, 1025, 2000, 2001, 2048, 2049, 8001, 100_000, 1_000_000]

export const longString = fc
  .tuple(fc.constantFrom(...longLengths), fc.constantFrom("a", "é", "😀", " ", "\u0000", "<b>"))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)))

/** Any string, short strings built from nasty pieces (NUL, lone surrogates, markup, escapes), and very long ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...nastyPieces), fc.string({ unit: "binary", maxLength: 3 })), { maxLength: 8 })
      .map((parts) => parts.join(""))
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: longString }
)

/** Short hostile strings only: for names, keys and header values. */
export const shortHostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.array(fc.constantFrom(...nastyPieces), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""))
)

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    0,
    -1,
    1,
    2 ** 31 - 1,
    2 ** 31,
    2 ** 32,
    2 ** 53,
    2 ** 53 + 2,
    2 ** 63,
    -(2 ** 53),
    1e21,
    1e308,
    5e-324,
    0.5
  )
)

// --- HTML --------------------------------------------------------------------------------------------------------

const htmlTags = ["div", "b", "i", "p", "span", "a", "table", "td", "ul", "li", "blockquote", "em", "font", "select"]
const htmlDepths = [10, 255, 256, 257, 1000, 5000, 20_000]

/** HTML nested thousands of elements deep (closed or not), misnested formatting, dangerous markup, odd text. */
export const hostileHtml: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.array(fc.constantFrom(...htmlTags), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(...htmlDepths),
      fc.boolean()
    )
    .map(([tags, depth, closed]) => {
      const open = tags.map((tag) => `<${tag}>`).join("")
      const close = [...tags]
        .reverse()
        .map((tag) => `</${tag}>`)
        .join("")
      return `${open.repeat(depth)}x${closed ? close.repeat(depth) : ""}`
    }),
  fc.constantFrom(1000, 5000).map((n) => "<b>1<p>2</b>3</p>".repeat(n)),
  fc.constantFrom(
    "<p>ok</p>",
    "<script>alert(1)</script>",
    '<a href="javascript:alert(1)">x</a>',
    '<img src=x onerror="alert(1)">',
    "<svg><script>1</script></svg>",
    '<a data-service-protected="backlink" href="https://partner.example/">our partner</a>',
    "<!-- <p>",
    "<![CDATA[x]]>",
    "</p></p></p>",
    "<p",
    "&#0;&#xD800;&#x110000;&bogus;",
    "<table><tr><td><table><tr><td>"
  ),
  hostileString
)
