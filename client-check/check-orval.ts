import { apiKey, check, checkServedImage, marker, PIXEL, reporter } from "./Common.js"
import {
  articlesGetArticle,
  articlesListArticles,
  articlesPatchArticle,
  articlesReplaceFeaturedImageWithFormData,
  articlesReplaceFeaturedImageWithJson,
  articlesUpdateArticle,
  backlinksListBacklinks,
  metaOpenapi,
  sitesListSites,
  statsGetStats
} from "./generated/orval/api.js"

/*
 * Calls every endpoint of a running service through the fetch client orval generates from the committed
 * openapi.json (its base URL given to the generator: CBS_BASE_URL), with no cast and no hand-set header but the
 * key: if the document and the service disagree, this fails to compile or fails here.
 */

const report = reporter("orval")
const auth: RequestInit = { headers: { Authorization: `Bearer ${apiKey}` } }

/** A reply that succeeded, narrowed to its success type (a type guard, not a cast); else the call fails. */
const succeeded = <R extends { readonly status: number; readonly headers: Headers }>(
  what: string,
  reply: R
): reply is Extract<R, { readonly status: 200 }> => {
  if (reply.status !== 200) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply)}`)
  report.ok(reply.status, what, reply.headers)
  return true
}

const document = await metaOpenapi()
if (!succeeded("GET /api/v1/openapi.json", document)) throw new Error("unreachable")

const sites = await sitesListSites({ per_page: 5 }, auth)
if (!succeeded("GET /api/v1/sites", sites)) throw new Error("unreachable")
const site = sites.data.data[0]
if (site === undefined) throw new Error("the key's account has no website")

const articles = await articlesListArticles(site.id, { status: "published", per_page: 10 }, auth)
if (!succeeded("GET /api/v1/sites/{id}/articles", articles)) throw new Error("unreachable")
const listed = articles.data.data[0]
if (listed === undefined) throw new Error("the website has no published article")
check(
  articles.data.data.every((article) => article.status === "published"),
  "the status filter holds"
)

const read = await articlesGetArticle(listed.id, auth)
if (!succeeded("GET /api/v1/articles/{id}", read)) throw new Error("unreachable")
const id = read.data.data.id

const text = marker()
const replaced = await articlesUpdateArticle(
  id,
  { body: `${read.data.data.body}<p>${text}</p>`, reason: "generated-client check" },
  undefined,
  auth
)
if (!succeeded("PUT /api/v1/articles/{id}", replaced)) throw new Error("unreachable")
check(replaced.data.data.body.includes(text), "PUT stores the new body")

const patched = await articlesPatchArticle(
  id,
  { replacements: [{ find: text, replace: "Checked by orval's client." }], reason: "generated-client check" },
  undefined,
  auth
)
if (!succeeded("PATCH /api/v1/articles/{id}", patched)) throw new Error("unreachable")
check(patched.data.data.body.includes("Checked by orval's client.</p>"), "PATCH applies the replacement")

const uploaded = await articlesReplaceFeaturedImageWithFormData(
  id,
  { image: new File([PIXEL], "pixel.png", { type: "image/png" }), reason: "generated-client check" },
  undefined,
  auth
)
if (!succeeded("POST /api/v1/articles/{id}/featured-image (multipart upload)", uploaded)) throw new Error("unreachable")
await checkServedImage(uploaded.data.data.featured_image_url)

const linked = await articlesReplaceFeaturedImageWithJson(
  id,
  { url: "https://cdn.example.com/orval.jpg", reason: "generated-client check" },
  undefined,
  auth
)
if (!succeeded("POST /api/v1/articles/{id}/featured-image (JSON url)", linked)) throw new Error("unreachable")
check(linked.data.data.featured_image_url === "https://cdn.example.com/orval.jpg", "a url is stored as given")

const backlinks = await backlinksListBacklinks(site.id, { per_page: 100 }, auth)
if (!succeeded("GET /api/v1/sites/{id}/backlinks", backlinks)) throw new Error("unreachable")
check(backlinks.data.data.length <= backlinks.data.meta.total, "the backlinks list pages")

const stats = await statsGetStats(site.id, { from: "2000-01-01", to: "2099-12-31" }, auth)
if (!succeeded("GET /api/v1/sites/{id}/stats", stats)) throw new Error("unreachable")
const counts = stats.data.data
check(counts.backlinks_acquired === counts.backlinks_industry + counts.backlinks_local, "stats add up")

const missing = await articlesGetArticle(2_000_000_000, auth)
check(missing.status === 404 && missing.data.error === "not_found", "a missing article is 404 not_found")
report.ok(missing.status, "GET /api/v1/articles/{id} (missing)", missing.headers)
report.done()
