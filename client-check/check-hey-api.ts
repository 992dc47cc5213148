import { apiKey, baseUrl, check, checkServedImage, marker, PIXEL, reporter } from "./Common.js"
import { client } from "./generated/hey-api/client.gen.js"
import {
  articlesGetArticle,
  articlesListArticles,
  articlesPatchArticle,
  articlesReplaceFeaturedImage,
  articlesUpdateArticle,
  backlinksListBacklinks,
  metaOpenapi,
  sitesListSites,
  statsGetStats
} from "./generated/hey-api/sdk.gen.js"

/*
 * Calls every endpoint of a running service through the fetch client @hey-api/openapi-ts generates from the
 * committed openapi.json, with no cast and no hand-set header (the key goes through the client's own `auth`): if the
 * document and the service disagree, this fails to compile or fails here.
 */

const report = reporter("hey-api")
client.setConfig({ baseUrl, auth: () => apiKey })

/** The data of a successful call, or a failure that names the call and the error body. */
const dataOf = <T>(what: string, result: { data?: T; error?: unknown; response?: Response }): NonNullable<T> => {
  if (result.data === undefined || result.data === null || result.response === undefined) {
    throw new Error(`${what}: ${result.response?.status} ${JSON.stringify(result.error)}`)
  }
  report.ok(result.response.status, what, result.response.headers)
  return result.data
}

dataOf("GET /api/v1/openapi.json", await metaOpenapi())

const sites = dataOf("GET /api/v1/sites", await sitesListSites({ query: { per_page: 5 } }))
const site = sites.data[0]
if (site === undefined) throw new Error("the key's account has no website")

const articles = dataOf(
  "GET /api/v1/sites/{id}/articles",
  await articlesListArticles({ path: { id: site.id }, query: { status: "published", per_page: 10 } })
)
const listed = articles.data[0]
if (listed === undefined) throw new Error("the website has no published article")
check(
  articles.data.every((article) => article.status === "published"),
  "the status filter holds"
)

const read = dataOf("GET /api/v1/articles/{id}", await articlesGetArticle({ path: { id: listed.id } }))
const id = read.data.id

const text = marker()
const replaced = dataOf(
  "PUT /api/v1/articles/{id}",
  await articlesUpdateArticle({
    path: { id },
    body: { body: `${read.data.body}<p>${text}</p>`, reason: "generated-client check" }
  })
)
check(replaced.data.body.includes(text), "PUT stores the new body")

const patched = dataOf(
  "PATCH /api/v1/articles/{id}",
  await articlesPatchArticle({
    path: { id },
    body: { replacements: [{ find: text, replace: "Checked by hey-api's client." }], reason: "generated-client check" }
  })
)
check(patched.data.body.includes("Checked by hey-api's client.</p>"), "PATCH applies the replacement")

const uploaded = dataOf(
  "POST /api/v1/articles/{id}/featured-image (multipart upload)",
  await articlesReplaceFeaturedImage({
    path: { id },
    body: { image: new File([PIXEL], "pixel.png", { type: "image/png" }), reason: "generated-client check" }
  })
)
await checkServedImage(uploaded.data.featured_image_url)

const linked = dataOf(
  "POST /api/v1/articles/{id}/featured-image (multipart url)",
  await articlesReplaceFeaturedImage({
    path: { id },
    body: { url: "https://cdn.example.com/hey-api.jpg", reason: "generated-client check" }
  })
)
check(linked.data.featured_image_url === "https://cdn.example.com/hey-api.jpg", "a url is stored as given")

const backlinks = dataOf(
  "GET /api/v1/sites/{id}/backlinks",
  await backlinksListBacklinks({ path: { id: site.id }, query: { per_page: 100 } })
)
check(backlinks.data.length <= backlinks.meta.total, "the backlinks list pages")

const stats = dataOf(
  "GET /api/v1/sites/{id}/stats",
  await statsGetStats({ path: { id: site.id }, query: { from: "2000-01-01", to: "2099-12-31" } })
)
check(stats.data.backlinks_acquired === stats.data.backlinks_industry + stats.data.backlinks_local, "stats add up")

const missing = await articlesGetArticle({ path: { id: 2_000_000_000 } })
check(missing.response?.status === 404 && missing.error?.error === "not_found", "a missing article is 404 not_found")
report.ok(404, "GET /api/v1/articles/{id} (missing)", missing.response!.headers)
report.done()
