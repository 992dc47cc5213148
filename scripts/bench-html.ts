// Times the HTML work of one article write on a realistic ~200 KB body: apply 50 replacements, sanitise the new
// body, check its protected links against the current one. The current body's links are the ones stored with it
// (as the service reads them: JSON, trusted once the body's SHA-256 matches); the cold case, where they must be
// parsed from the body, is timed too. Then times sanitize-html on the same inputs with an equivalent allow-list,
// for scale. Two inputs: the PATCH case (replacements on the canonical body, so the result is nearly canonical)
// and the PUT case (editor HTML with wrappers and classes that the sanitiser has to remove).
// It ends with the line `PATCH write / sanitize-html: R×` (the whole write against sanitize-html alone).
// Run: npm run bench:html
import { performance } from "node:perf_hooks"
import sanitizeHtml from "sanitize-html"
import { protectedLinksOf, storedLinks, trustedLinksOf } from "../src/Articles/StoredLinks.js"
import { compareProtectedLinks, extractProtectedLinks } from "../src/Html/ProtectedLinks.js"
import { applyReplacements, type Replacement } from "../src/Html/Replacements.js"
import { sanitize } from "../src/Html/Sanitize.js"
import { sanitizeTextEdit, textAfterTextEdit } from "../src/Html/TextEdit.js"
import { loadAverage } from "./LoadAverage.js"

const loadAtStart = loadAverage()

const warmup = 50
const iterations = 300
const TARGET_MS = 25
/** The whole PATCH write (replacements, sanitiser, protected-link check) against sanitize-html's time alone. */
const TARGET_RATIO = 1.5

const sentence = (n: number): string =>
  `Sentence ${n} explains how a <strong>local plumber</strong> keeps boilers, radiators and <em>pipes</em> in good order through the winter months.`

/** Paragraphs, headings, lists, ordinary links and 30 protected links, about 200 KB in all. */
const makeBody = (): string => {
  const parts: Array<string> = []
  let protectedLinks = 0
  for (let section = 0; parts.join("").length < 212_000; section++) {
    parts.push(`<h2>Section ${section}: choosing a heating engineer</h2>`)
    for (let paragraph = 0; paragraph < 4; paragraph++) {
      const n = section * 10 + paragraph
      const link =
        paragraph === 1 && protectedLinks < 30
          ? `<a href="https://client${protectedLinks}.example/" data-service-protected="${protectedLinks++ % 3 === 0 ? "internal" : "backlink"}">trusted engineer ${section}</a>`
          : `<a href="https://example.org/read/${n}" title="More">further reading</a>`
      parts.push(
        `<p class="lead">${sentence(n)} ${sentence(n + 1)} Marker-${n}-end. See ${link} for details. ${sentence(n + 2)}</p>`
      )
    }
    parts.push(
      `<div class="box"><ul><li>Check the pressure</li><li>Bleed the radiators</li><li>Book a service for item ${section}</li></ul></div><!-- /box -->`
    )
  }
  return parts.join("")
}

const canonical = (html: string): string => {
  const result = sanitize(html)
  if (result._tag !== "Ok") throw new Error(`benchmark body rejected: ${result.construct}`)
  return result.html
}

const editorHtml = makeBody()
const current = canonical(editorHtml)
const replacements: Array<Replacement> = Array.from({ length: 50 }, (_, i) => ({
  find: `Marker-${i * 10}-end.`,
  replace: `Updated marker ${i}.`
}))
const next = applyReplacements(current, replacements)
if (next._tag !== "Ok") throw new Error(`benchmark replacements conflict at ${next.index}`)
if (textAfterTextEdit(current, next.body) === undefined) throw new Error("the benchmark's edit is not of text alone")

/** Median and p99 of `iterations` timed runs (the caller warms the code up first). */
const time = (run: () => void): { median: number; p99: number } => {
  const samples: Array<number> = []
  for (let i = 0; i < iterations; i++) {
    const start = performance.now()
    run()
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)]!
  return { median: at(0.5), p99: at(0.99) }
}

const ms = (value: number) => `${value.toFixed(2)} ms`

const sanitizeHtmlOptions: sanitizeHtml.IOptions = {
  allowedTags: [
    ..."h1 h2 h3 h4 h5 h6 p br hr ul ol li a strong b em i u s sub sup mark small blockquote q code pre kbd".split(" "),
    ..."figure figcaption img table thead tbody tfoot tr th td caption colgroup col dl dt dd span abbr cite del ins".split(
      " "
    )
  ],
  allowedAttributes: {
    a: ["href", "title", "rel", "target", { name: "data-service-protected", values: ["backlink", "internal"] }],
    img: ["src", "alt", "title", "width", "height", "loading"],
    th: ["colspan", "rowspan", "scope"],
    td: ["colspan", "rowspan", "scope"],
    ol: ["start", "reversed", "type"],
    col: ["span"],
    colgroup: ["span"]
  },
  allowedSchemes: ["http", "https", "mailto", "tel"],
  allowProtocolRelative: true
}

/** The current article as the database gives it: the links stored with the body as JSON text, and its digest. */
const stored = storedLinks(current, extractProtectedLinks(current))

/** What ArticleEdits does with the HTML of a PATCH, from the row it read to the values it writes. */
const patchWrite = (stored: { readonly json: string | null; readonly digest: Uint8Array | null }) => () => {
  const row = {
    body: current,
    protected_links: stored.json === null ? null : JSON.parse(stored.json),
    protected_links_sha256: stored.digest
  }
  const before = protectedLinksOf(row)
  const replaced = applyReplacements(current, replacements)
  if (replaced._tag !== "Ok") throw new Error("conflict")
  // As ArticleEdits does: a body whose stored links are its own is canonical, and an edit of its text alone is
  // read in one pass; otherwise the new body is sanitised whole.
  const trusted = trustedLinksOf(row)
  const sanitized = trusted === undefined ? sanitize(replaced.body) : sanitizeTextEdit(current, trusted, replaced.body)
  if (sanitized._tag !== "Ok") throw new Error("rejected")
  // As the edit service does: the new body's links come from the sanitiser's own tree.
  const concerned = compareProtectedLinks(before, sanitized.protectedLinks)
  if (concerned.length !== 0) throw new Error("protected links violated")
  // Stored with the new body.
  storedLinks(sanitized.html, sanitized.protectedLinks)
}

const workloads = {
  write: patchWrite({ json: stored.protected_links, digest: stored.protected_links_sha256 }),
  coldWrite: patchWrite({ json: null, digest: null }),
  replace: () => applyReplacements(current, replacements),
  oursPatch: () => sanitize(next.body),
  onePass: () => textAfterTextEdit(current, next.body),
  links: () => extractProtectedLinks(current),
  oursPut: () => sanitize(editorHtml),
  theirsPatch: () => sanitizeHtml(next.body, sanitizeHtmlOptions),
  theirsPut: () => sanitizeHtml(editorHtml, sanitizeHtmlOptions)
}
// Every workload is warmed up before any is timed, so that none is measured while the code it shares with
// another (the parser, above all) is still being optimised.
for (const run of Object.values(workloads)) for (let i = 0; i < warmup; i++) run()
const write = time(workloads.write)
const coldWrite = time(workloads.coldWrite)
const replace = time(workloads.replace)
const oursPatch = time(workloads.oursPatch)
const onePass = time(workloads.onePass)
const links = time(workloads.links)
const oursPut = time(workloads.oursPut)
const theirsPatch = time(workloads.theirsPatch)
const theirsPut = time(workloads.theirsPut)

const line = (label: string, t: { median: number; p99: number }) =>
  console.log(`${label.padEnd(58)} median ${ms(t.median).padStart(9)}   p99 ${ms(t.p99).padStart(9)}`)
console.log(
  `${new Date().toISOString()}  Node ${process.version}  load average ${loadAtStart} at the start, ${loadAverage()} at the end`
)
console.log(
  `body ${(current.length / 1024).toFixed(0)} KB canonical (${(editorHtml.length / 1024).toFixed(0)} KB as written),`
)
console.log(
  `30 protected links, 50 replacements, ${iterations} timed iterations of each after ${warmup} warm-up runs of all`
)
line("PATCH write: replacements + sanitize + protected-link check", write)
line("  applyReplacements (50)", replace)
line("  reading the edited text in one pass (stored body)", onePass)
line("PATCH write when the body must be sanitised whole", coldWrite)
line("  sanitize (near-canonical body)", oursPatch)
line("  parsing the current body for its protected links", links)
line("sanitize (editor HTML, needs a second pass)", oursPut)
line("sanitize-html (near-canonical body)", theirsPatch)
line("sanitize-html (editor HTML)", theirsPut)
console.log(
  `ratio ours / sanitize-html, median: near-canonical ${(oursPatch.median / theirsPatch.median).toFixed(2)}, editor HTML ${(oursPut.median / theirsPut.median).toFixed(2)}`
)
console.log(
  `PATCH write median ${ms(write.median)} (target < ${TARGET_MS} ms: ${write.median < TARGET_MS ? "holds" : "MISSED"})`
)
const writeRatio = write.median / theirsPatch.median
console.log(
  `PATCH write against sanitize-html alone on the same body: target ≤ ${TARGET_RATIO}×: ${writeRatio <= TARGET_RATIO ? "met" : "NOT MET"}`
)
console.log("")
console.log(`PATCH write / sanitize-html: ${writeRatio.toFixed(2)}×`)
