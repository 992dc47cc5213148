// @tags: runtime
import { readdirSync } from "node:fs"
import { request as rawRequest } from "node:http"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import type { ArticleId } from "../src/Domain/Ids.js"
import { request } from "./support/Http.js"
import { freshMediaDir, PNG_BASE64 } from "./support/Media.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

const mediaDir = freshMediaDir("cbs-media-test-")

const MAX_IMAGE_BYTES = 10 * 1024 * 1024

const bytes = (...parts: ReadonlyArray<string | ReadonlyArray<number>>) =>
  new Uint8Array(parts.flatMap((part) => (typeof part === "string" ? Array.from(part, (c) => c.charCodeAt(0)) : part)))

/** A real, valid 1×1 PNG. */
const PNG = Uint8Array.from(Buffer.from(PNG_BASE64, "base64"))
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], "JFIF", [0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9])
const GIF = bytes("GIF89a", [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x3b])
const WEBP = bytes("RIFF", [0x1a, 0, 0, 0], "WEBP", "VP8L", [0x0d, 0, 0, 0, 0x2f, 0, 0, 0, 0x10, 0x07, 0x10, 0x11])
const AVIF = bytes([0, 0, 0, 0x1c], "ftyp", "avif", [0, 0, 0, 0], "avif", "mif1", "miaf", [0, 0, 0, 8], "free")

const imageTypes = [
  { name: "PNG", data: PNG, extension: "png", mime: "image/png" },
  { name: "JPEG", data: JPEG, extension: "jpg", mime: "image/jpeg" },
  { name: "GIF", data: GIF, extension: "gif", mime: "image/gif" },
  { name: "WebP", data: WEBP, extension: "webp", mime: "image/webp" },
  { name: "AVIF", data: AVIF, extension: "avif", mime: "image/avif" }
] as const

const ARTICLE_FIELDS = [
  "featured_image_url",
  "id",
  "published_at",
  "revision",
  "site_id",
  "status",
  "target_keyword",
  "title",
  "url",
  "word_count"
]

/** An absolute https URL of exactly `length` characters. */
const urlOfLength = (length: number) => "https://cdn.example.com/".padEnd(length, "a")

/** A multipart form with an optional file field `image` and optional text fields. */
const form = (options: {
  readonly image?: { readonly data: Uint8Array<ArrayBuffer>; readonly name: string; readonly type: string }
  readonly url?: string
  readonly reason?: string
}) => {
  const data = new FormData()
  if (options.image !== undefined) {
    data.append("image", new Blob([options.image.data], { type: options.image.type }), options.image.name)
  }
  if (options.url !== undefined) data.append("url", options.url)
  if (options.reason !== undefined) data.append("reason", options.reason)
  return data
}

/** POST to the featured-image endpoint (with `query`, if any); the status and the parsed answer. */
const post = (id: number, key: string, body: FormData | { readonly json: unknown }, query = "") =>
  request(
    "POST",
    `/api/v1/articles/${id}/featured-image${query}`,
    body instanceof FormData ? { key, body } : { key, json: body.json }
  )

const upload = (id: number, key: string, data: Uint8Array<ArrayBuffer>, name = "photo.png", type = "image/png") =>
  post(id, key, form({ image: { data, name, type } }))

/** A GET of a raw, unnormalised request target (fetch would resolve `..` itself). */
const rawGet = (baseUrl: string, target: string) =>
  Effect.async<{ readonly status: number; readonly contentType: string; readonly text: string }>((resume) => {
    const { hostname, port } = new URL(baseUrl)
    const req = rawRequest({ hostname, port, path: target, method: "GET" }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () =>
        resume(
          Effect.succeed({
            status: res.statusCode ?? 0,
            contentType: String(res.headers["content-type"] ?? ""),
            text: Buffer.concat(chunks).toString("utf8")
          })
        )
      )
    })
    req.on("error", (error) => resume(Effect.die(error)))
    req.end()
  })

const featuredImageOf = (id: ArticleId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{
      featured_image_url: string | null
    }>`select featured_image_url from articles where id = ${id}`.pipe(Effect.orDie)
    return rows[0]!.featured_image_url
  })

/** A fresh account with one website and one article. */
const articleOfNewAccount = (featured_image_url: string | null = null) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const { accountId, key } = yield* app.makeAccount()
    const siteId = yield* app.makeSite(accountId)
    const id = yield* app.makeArticle(siteId, { featured_image_url })
    return { key, id }
  })

const assertError = (result: { readonly status: number; readonly body: Record<string, unknown> }, error: string) => {
  assert.strictEqual(result.status, 422, JSON.stringify(result.body))
  assert.strictEqual(result.body["error"], error)
  assert.isString(result.body["message"])
}

/** Checks that `url` is an absolute address of this server under /media/ with a 64-hex name; returns its path. */
const assertMediaUrl = (baseUrl: string, url: string, extension: string) => {
  assert.isTrue(URL.canParse(url), `not an absolute URL: ${url}`)
  const parsed = new URL(url)
  assert.strictEqual(parsed.protocol, "http:")
  assert.strictEqual(parsed.port, new URL(baseUrl).port)
  assert.match(parsed.pathname, new RegExp(`^/media/[0-9a-f]{64}\\.${extension}$`))
  return parsed.pathname
}

layer(TestServerLive)("featured image", (it) => {
  describe("uploads", () => {
    for (const type of imageTypes) {
      it.effect(`a ${type.name} upload is stored and served byte for byte as ${type.mime} with a long cache`, () =>
        Effect.gen(function* () {
          const app = yield* TestApp
          const { key, id } = yield* articleOfNewAccount()
          // Name and declared type deliberately say nothing useful: the bytes decide.
          const res = yield* upload(id, key, type.data, "upload.bin", "application/octet-stream")
          assert.strictEqual(res.status, 200, JSON.stringify(res.body))
          const path = assertMediaUrl(app.baseUrl, res.body.data.featured_image_url, type.extension)
          assert.strictEqual(yield* featuredImageOf(id), res.body.data.featured_image_url)

          const served = yield* app.fetch(path)
          assert.strictEqual(served.status, 200)
          assert.strictEqual(served.headers.get("content-type"), type.mime)
          const maxAge = /max-age=(\d+)/.exec(served.headers.get("cache-control") ?? "")
          assert.isNotNull(maxAge)
          assert.isAtLeast(Number(maxAge![1]), 30 * 24 * 3600)
          const content = new Uint8Array(yield* Effect.promise(() => served.arrayBuffer()))
          assert.deepStrictEqual(content, type.data)
        })
      )
    }

    it.effect("the response data is an Article with the new featured_image_url and no body", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const res = yield* upload(id, key, PNG)
        assert.strictEqual(res.status, 200)
        assert.deepStrictEqual(Object.keys(res.body.data).sort(), ARTICLE_FIELDS)
        assert.strictEqual(res.body.data.id, id)
      })
    )

    it.effect("an upload refused as 404 (another account's article) or 429 (quota used) leaves no file", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.now())
        const app = yield* TestApp
        const sql = yield* SqlClient.SqlClient
        const stored = () => readdirSync(mediaDir).filter((name) => !name.endsWith(".tmp"))
        const before = stored()
        const { key } = yield* articleOfNewAccount()
        const foreign = yield* articleOfNewAccount()
        // A PNG of its own, so that no earlier test stored the same content.
        const unique = Uint8Array.from([...PNG, ...new TextEncoder().encode(`orphan-${Date.now()}`)])
        const foreignAnswer = yield* upload(foreign.id, key, unique)
        assert.strictEqual(foreignAnswer.status, 404)
        const { accountId, key: spent } = yield* app.makeAccount()
        const id = yield* app.makeArticle(yield* app.makeSite(accountId))
        yield* sql`insert into edit_counters (account_id, day, count)
          values (${accountId}, ${new Date().toISOString().slice(0, 10)}::date, 200)
          on conflict do nothing`.pipe(Effect.orDie)
        const spentAnswer = yield* upload(id, spent, unique)
        assert.strictEqual(spentAnswer.status, 429)
        assert.strictEqual(spentAnswer.body.error, "edit_limit_exceeded")
        assert.deepStrictEqual(stored(), before)
      })
    )

    it.effect("the same upload twice gives the same URL", () =>
      Effect.gen(function* () {
        const first = yield* articleOfNewAccount()
        const second = yield* articleOfNewAccount()
        const a = yield* upload(first.id, first.key, PNG, "a.png")
        const b = yield* upload(second.id, second.key, PNG, "b.png")
        assert.strictEqual(a.status, 200)
        assert.strictEqual(b.status, 200)
        assert.strictEqual(a.body.data.featured_image_url, b.body.data.featured_image_url)
      })
    )

    it.effect("text bytes named x.png and declared image/png are 422 unsupported_image", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount("https://cdn.example.com/old.jpg")
        const res = yield* upload(id, key, bytes("This is plain text, not an image at all."), "x.png", "image/png")
        assertError(res, "unsupported_image")
        assert.strictEqual(yield* featuredImageOf(id), "https://cdn.example.com/old.jpg")
      })
    )

    it.effect("an image of exactly 10 MiB is accepted", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const data = new Uint8Array(MAX_IMAGE_BYTES)
        data.set(PNG.subarray(0, 8))
        const res = yield* upload(id, key, data)
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.match(res.body.data.featured_image_url, /\/media\/[0-9a-f]{64}\.png$/)
      })
    )

    it.effect("an image one byte over 10 MiB is 422 image_too_large with limit 10485760", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount("https://cdn.example.com/old.jpg")
        const data = new Uint8Array(MAX_IMAGE_BYTES + 1)
        data.set(PNG.subarray(0, 8))
        const res = yield* upload(id, key, data)
        assertError(res, "image_too_large")
        assert.strictEqual(res.body.limit, 10485760)
        assert.strictEqual(yield* featuredImageOf(id), "https://cdn.example.com/old.jpg")
      })
    )

    it.effect("when both image and url are sent, the uploaded image wins", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, id } = yield* articleOfNewAccount()
        const res = yield* post(
          id,
          key,
          form({
            image: { data: GIF, name: "a.gif", type: "image/gif" },
            url: "https://cdn.example.com/ignored.jpg"
          })
        )
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assertMediaUrl(app.baseUrl, res.body.data.featured_image_url, "gif")
      })
    )

    it.effect("a multipart form with a url and no image stores the url as given", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const url = "https://cdn.example.com/from-form.jpg?w=1200&h=630"
        const res = yield* post(id, key, form({ url, reason: "form" }))
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.strictEqual(res.body.data.featured_image_url, url)
      })
    )

    it.effect("a multipart form with neither image nor url is 422 validation_error", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount("https://cdn.example.com/old.jpg")
        const res = yield* post(id, key, form({ reason: "nothing to set" }))
        assertError(res, "validation_error")
        assert.strictEqual(yield* featuredImageOf(id), "https://cdn.example.com/old.jpg")
      })
    )
  })

  describe("dry_run", () => {
    /** The article's revisions and the files stored so far. */
    const traces = (id: ArticleId) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ n: number }>`
          select count(*)::int as n from article_revisions where article_id = ${id}`.pipe(Effect.orDie)
        return {
          revisions: row!.n,
          featured: yield* featuredImageOf(id),
          files: readdirSync(mediaDir).filter((name) => !name.endsWith(".tmp"))
        }
      })

    const dryRun = (id: number, key: string, body: FormData | { readonly json: unknown }) =>
      post(id, key, body, "?dry_run=true")

    it.effect("a dry run of an upload answers the would-be article and its image address, and stores nothing", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key, id } = yield* articleOfNewAccount("https://img.example/old.png")
        const unique = Uint8Array.from([...PNG, ...new TextEncoder().encode(`dry-run-${Date.now()}`)])
        const before = yield* traces(id)
        const dry = yield* dryRun(id, key, form({ image: { data: unique, name: "a.png", type: "image/png" } }))
        assert.strictEqual(dry.status, 200, JSON.stringify(dry.body))
        const path = assertMediaUrl(app.baseUrl, dry.body.data.featured_image_url, "png")
        assert.deepStrictEqual(dry.body.preview, {
          changed: true,
          diff: "",
          title_changed: false,
          meta_description_changed: false,
          current: { title: dry.body.data.title, meta_description: null }
        })
        assert.strictEqual(dry.body.data.revision, 1)
        assert.deepStrictEqual(yield* traces(id), before)
        assert.strictEqual((yield* app.fetch(path)).status, 404)
        // The real upload then stores it at that very address.
        const real = yield* upload(id, key, unique)
        assert.strictEqual(real.body.data.featured_image_url, dry.body.data.featured_image_url)
        assert.notProperty(real.body, "preview")
      })
    )

    it.effect("a dry run of a url changes nothing; its errors are the real request's", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const before = yield* traces(id)
        const dry = yield* dryRun(id, key, { json: { url: "https://img.example/new.png" } })
        assert.strictEqual(dry.status, 200)
        assert.strictEqual(dry.body.data.featured_image_url, "https://img.example/new.png")
        assert.isTrue(dry.body.preview.changed)
        assertError(
          yield* dryRun(id, key, form({ image: { data: bytes("hello"), name: "x.png", type: "image/png" } })),
          "unsupported_image"
        )
        assertError(yield* dryRun(id, key, { json: { url: "javascript:alert(1)" } }), "validation_error")
        assert.deepStrictEqual(yield* traces(id), before)
      })
    )
  })

  describe("JSON url", () => {
    it.effect("stores the url exactly as given", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const url = "https://CDN.example.com/images/Hero%20Shot.JPG?v=2#top"
        const res = yield* post(id, key, { json: { url, reason: "new hero" } })
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.strictEqual(res.body.data.featured_image_url, url)
        assert.deepStrictEqual(Object.keys(res.body.data).sort(), ARTICLE_FIELDS)
        assert.strictEqual(yield* featuredImageOf(id), url)
      })
    )

    const refused: ReadonlyArray<readonly [string, string]> = [
      ["an ftp: url", "ftp://files.example.com/a.png"],
      ["a javascript: url", "javascript:alert(1)"],
      ["a relative url", "/x.png"],
      ["a url of 2049 characters", urlOfLength(2049)]
    ]
    for (const [label, url] of refused) {
      it.effect(`${label} is 422 validation_error and changes nothing`, () =>
        Effect.gen(function* () {
          const { key, id } = yield* articleOfNewAccount("https://cdn.example.com/old.jpg")
          const res = yield* post(id, key, { json: { url } })
          assertError(res, "validation_error")
          assert.strictEqual(yield* featuredImageOf(id), "https://cdn.example.com/old.jpg")
        })
      )
    }

    it.effect("a url of 2048 characters is accepted", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfNewAccount()
        const url = urlOfLength(2048)
        assert.strictEqual(url.length, 2048)
        const res = yield* post(id, key, { json: { url } })
        assert.strictEqual(res.status, 200, JSON.stringify(res.body))
        assert.strictEqual(res.body.data.featured_image_url, url)
      })
    )
  })

  describe("/media", () => {
    for (const target of ["/media/../etc/passwd", "/media/..%2F..%2Fetc%2Fpasswd", "/media/%2e%2e/etc/passwd"]) {
      it.effect(`GET ${target} is a JSON 404`, () =>
        Effect.gen(function* () {
          const app = yield* TestApp
          const res = yield* rawGet(app.baseUrl, target)
          assert.strictEqual(res.status, 404)
          assert.match(res.contentType, /^application\/json/)
          assert.strictEqual(JSON.parse(res.text).error, "not_found")
          assert.notInclude(res.text, "root:")
        })
      )
    }

    for (const name of ["abc.png", `${"a".repeat(63)}.png`, `${"A".repeat(64)}.png`, `${"a".repeat(64)}.exe`]) {
      it.effect(`GET /media/${name} (not a stored name) is a JSON 404`, () =>
        Effect.gen(function* () {
          const app = yield* TestApp
          const res = yield* app.fetch(`/media/${name}`)
          assert.strictEqual(res.status, 404)
          assert.match(res.headers.get("content-type") ?? "", /^application\/json/)
          assert.strictEqual((yield* Effect.promise(() => res.json())).error, "not_found")
        })
      )
    }

    it.effect("GET of a well-formed name that was never stored is a JSON 404", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const res = yield* app.fetch(`/media/${"0".repeat(64)}.png`)
        assert.strictEqual(res.status, 404)
        assert.strictEqual((yield* Effect.promise(() => res.json())).error, "not_found")
      })
    )
  })
})
