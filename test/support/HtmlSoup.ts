import fc from "fast-check"

// HTML-ish soup: allowed and unwrapped tags, stray end tags, attributes safe and unsafe, entities, raw newlines.
const tagNames = [
  ..."p a b i em strong pre code ul ol li table tbody tr td th caption col colgroup h1 h2 img br hr span blockquote dl dt dd figure figcaption sub sup q".split(
    " "
  ),
  ..."div section font nobr button form input textarea select option noscript xmp title label listing center marquee".split(
    " "
  )
]
const dangerousTagNames = ["script", "svg", "math", "iframe", "style", "template", "object"]
const safeAttributeNames = [
  "href",
  "src",
  "title",
  "class",
  "style",
  "data-service-protected",
  "colspan",
  "alt",
  "rel",
  "start"
]
const safeAttributeValues = [
  "https://a.test/x",
  "/rel?a=1&amp;b=2",
  "mailto:a@b.test",
  "ftp://f",
  "backlink",
  "internal",
  "other",
  "&quot;q&quot; &lt;&gt;",
  " 1 ",
  ""
]
const dangerousAttributeNames = ["onclick", "srcset", "OnLoad"]
const dangerousAttributeValues = ["java&#x09;script:x", "JAVASCRIPT:x", "data:text/html,x", " vbscript:x"]
export const text = fc.string({
  unit: fc.constantFrom("a", "b", "Z", " ", "\n", "\t", "<", ">", "&", '"', "'", "/", "=", "\u00a0", "é", "€")
})
const entity = fc.constantFrom("&amp;", "&lt;", "&gt;", "&nbsp;", "&#106;", "&#x3C;", "&quot;", "&copy", "&")
const attribute = (names: ReadonlyArray<string>, values: ReadonlyArray<string>) =>
  fc
    .tuple(fc.constantFrom(...names), fc.constantFrom(...values), fc.constantFrom('"', "'", ""))
    .map(([name, value, quote]) =>
      quote === "" ? ` ${name}=${value.replace(/[\s"'<>=`]/g, "") || "v"}` : ` ${name}=${quote}${value}${quote}`
    )
const startTag = (names: ReadonlyArray<string>, dangerous: boolean) =>
  fc
    .tuple(
      fc.constantFrom(...names),
      fc.array(
        dangerous
          ? attribute(
              [...safeAttributeNames, ...dangerousAttributeNames],
              [...safeAttributeValues, ...dangerousAttributeValues]
            )
          : attribute(safeAttributeNames, safeAttributeValues),
        { maxLength: 3 }
      ),
      fc.boolean()
    )
    .map(([name, attrs, selfClosing]) => `<${name}${attrs.join("")}${selfClosing ? "/" : ""}>`)
const endTag = fc.constantFrom(...tagNames).map((name) => `</${name}>`)
const comment = text.map((content) => `<!--${content.replace(/-->/g, "")}-->`)

/**
 * HTML as people and tools write it, and worse. Without `dangerous`, every input is safe, so sanitising it always
 * succeeds; with it, some inputs carry script vectors.
 */
export const soup = (dangerous: boolean) =>
  fc
    .array(
      fc.oneof(
        { weight: 6, arbitrary: startTag(tagNames, dangerous) },
        { weight: 4, arbitrary: endTag },
        { weight: 5, arbitrary: text },
        { weight: 2, arbitrary: entity },
        { weight: 1, arbitrary: comment },
        { weight: 2, arbitrary: fc.constantFrom("\n", "\n\n", "\r\n", "<pre>", "<pre>\n\n") },
        ...(dangerous ? [{ weight: 1, arbitrary: startTag(dangerousTagNames, true) }] : [])
      ),
      { maxLength: 40 }
    )
    .map((parts) => parts.join(""))
