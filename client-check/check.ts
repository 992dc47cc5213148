import createClient from "openapi-fetch"
import { apiKey, baseUrl, check, checkServedImage, marker as newMarker, PIXEL } from "./Common.js"
import type { paths } from "./generated/api.js"

/*
 * Calls every endpoint of a running service through a client generated from the committed openapi.json
 * (openapi-typescript + openapi-fetch), with no cast and no hand-written type: if the document and the service
 * disagree, this fails to compile or fails here (see Common.ts for what it calls).
 */

const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } })

let calls = 0

/** The data of a successful call, or a failure that names the call and the error body. */
const expectData = <T>(what: string, result: { data?: T; error?: unknown; response: Response }): T => {
  calls++
  if (result.data === undefined) {
    throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`)
  }
  check(result.response.headers.get("x-request-id") !== null, `${what} has X-Request-Id`)
  process.stdout.write(`ok ${result.response.status} ${what}\n`)
  return result.data
}

/** Multipart fields as FormData (openapi-fetch sends JSON unless told otherwise). */
const formData = (fields: Record<string, string | Blob | undefined>) => {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) {
    if (value instanceof File) form.append(name, value, value.name)
    else if (value !== undefined) form.append(name, value)
  }
  return form
}

const document = expectData("GET /api/v1/openapi.json", await client.GET("/api/v1/openapi.json"))
check(typeof document["openapi"] === "string", "the document names its OpenAPI version")

const sites = expectData("GET /api/v1/sites", await client.GET("/api/v1/sites", { params: { query: { per_page: 5 } } }))
const site = sites.data[0]
if (site === undefined) throw new Error("the key's account has no website")
check(sites.meta.page === 1 && sites.meta.per_page === 5, "the sites list pages as asked")

const articles = expectData(
  "GET /api/v1/sites/{id}/articles",
  await client.GET("/api/v1/sites/{id}/articles", {
    params: { path: { id: site.id }, query: { status: "published", per_page: 10 } }
  })
)
const listed = articles.data[0]
if (listed === undefined) throw new Error("the website has no published article")
check(
  articles.data.every((article) => article.status === "published"),
  "the status filter returns published articles"
)

const read = expectData(
  "GET /api/v1/articles/{id}",
  await client.GET("/api/v1/articles/{id}", { params: { path: { id: listed.id } } })
)
const id = read.data.id

const marker = newMarker()
const replaced = expectData(
  "PUT /api/v1/articles/{id}",
  await client.PUT("/api/v1/articles/{id}", {
    params: { path: { id } },
    body: { body: `${read.data.body}<p>${marker}</p>`, reason: "generated-client check" }
  })
)
check(replaced.data.body.includes(marker), "PUT stores the new body")
check(replaced.data.protected_links.length === read.data.protected_links.length, "PUT keeps the protected links")

const patched = expectData(
  "PATCH /api/v1/articles/{id}",
  await client.PATCH("/api/v1/articles/{id}", {
    params: { path: { id } },
    body: {
      title: `${read.data.title ?? "Article"} (checked)`,
      replacements: [{ find: marker, replace: "Checked by the generated client." }],
      reason: "generated-client check"
    }
  })
)
check(patched.data.body.includes("Checked by the generated client.</p>"), "PATCH applies the replacement")

const uploaded = expectData(
  "POST /api/v1/articles/{id}/featured-image (multipart upload)",
  await client.POST("/api/v1/articles/{id}/featured-image", {
    params: { path: { id } },
    body: { image: new File([PIXEL], "pixel.png", { type: "image/png" }), reason: "generated-client check" },
    bodySerializer: formData
  })
)
await checkServedImage(uploaded.data.featured_image_url)

const linked = expectData(
  "POST /api/v1/articles/{id}/featured-image (JSON url)",
  await client.POST("/api/v1/articles/{id}/featured-image", {
    params: { path: { id } },
    body: { url: "https://cdn.example.com/photo.jpg", reason: "generated-client check" }
  })
)
check(linked.data.featured_image_url === "https://cdn.example.com/photo.jpg", "a url is stored as given")

const backlinks = expectData(
  "GET /api/v1/sites/{id}/backlinks",
  await client.GET("/api/v1/sites/{id}/backlinks", { params: { path: { id: site.id }, query: { per_page: 100 } } })
)
const stats = expectData(
  "GET /api/v1/sites/{id}/stats",
  await client.GET("/api/v1/sites/{id}/stats", {
    params: { path: { id: site.id }, query: { from: "2000-01-01", to: "2099-12-31" } }
  })
)
check(stats.data.backlinks_acquired === stats.data.backlinks_industry + stats.data.backlinks_local, "stats add up")
check(backlinks.data.length <= backlinks.meta.total, "the backlinks list pages")

// An error is typed too: its `error` is one of the identifiers the status documents.
const missing = await client.GET("/api/v1/articles/{id}", { params: { path: { id: 2_000_000_000 } } })
calls++
check(missing.response.status === 404 && missing.error?.error === "not_found", "a missing article is 404 not_found")
process.stdout.write(`ok 404 GET /api/v1/articles/{id} (missing: ${missing.error?.message})\n`)

process.stdout.write(`client check (openapi-typescript): ${calls} calls, every endpoint as the document says\n`)
