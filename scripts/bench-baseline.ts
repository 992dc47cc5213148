// The baseline for `npm run bench:api`: the article list of the service served by nothing but node:http and pg.
// It does what the service must do for `GET /api/v1/sites/:id/articles?page=N&per_page=M` and no more: look the API
// key up by its SHA-256 hash (the same statement as src/Auth/ApiKeysRepo.ts, last_used_at touch included), check
// that the key's account may read the site (as Sites.requireReadable does), then run the service's list and count
// statements, in the same order, and answer the same `{ data, meta }` JSON. No rate limit, call log, request id or
// access log: what the service costs beyond this is what the benchmark measures.
// Run by scripts/bench-api.ts: DATABASE_URL=… PORT=… tsx scripts/bench-baseline.ts
import { createHash, timingSafeEqual } from "node:crypto"
import { createServer, type ServerResponse } from "node:http"
import pg from "pg"

const databaseUrl = process.env["DATABASE_URL"]
const port = Number(process.env["PORT"] ?? "3100")
const poolSize = Number(process.env["POOL_SIZE"] ?? "10")
if (databaseUrl === undefined) throw new Error("DATABASE_URL is required")

// As src/Sql/Database.ts: int8 (ids, count(*)) read as numbers.
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === pg.types.builtins.INT8 && format !== "binary"
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"]
}
const pool = new pg.Pool({
  connectionString: databaseUrl,
  max: poolSize,
  application_name: "cbs-bench-baseline",
  types
})

const findKey = `
  with k as (
    select id, account_id, is_admin, key_hash, last_used_at from api_keys
    where key_hash = $1 and revoked_at is null
  ), touched as (
    update api_keys set last_used_at = now() from k
    where api_keys.id = k.id and (k.last_used_at is null or k.last_used_at < now() - interval '1 minute')
  )
  select id, account_id, is_admin, key_hash from k`
const findSite = `
  select id, name, website_url, language, country, geographic_scope, industry from sites
  where id = $1 and ($2::bigint is null or account_id = $2)`
const listArticles = `
  select a.id, a.site_id, a.title, a.url, a.status,
    to_char(a.published_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as published_at,
    a.target_keyword, a.word_count, a.featured_image_url, a.revision
  from articles a where a.site_id = $1
  order by a.published_at desc nulls last, a.id desc
  limit $2 offset $3`
const countArticles = "select count(*) as total from articles a where a.site_id = $1"

interface KeyRow {
  readonly account_id: number
  readonly is_admin: boolean
  readonly key_hash: Uint8Array
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  const json = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) })
  res.end(json)
}

const keyOf = (headers: Readonly<Record<string, string | Array<string> | undefined>>): string | undefined => {
  const authorization = headers["authorization"]
  if (typeof authorization === "string") return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization)?.[1]
  const apiKey = headers["x-api-key"]
  return typeof apiKey === "string" && apiKey.trim() !== "" ? apiKey.trim() : undefined
}

const pageParam = (value: string | null, fallback: number, max: number): number | undefined => {
  if (value === null) return fallback
  const n = Number(value)
  return Number.isInteger(n) && n >= 1 && n <= max ? n : undefined
}

const listPath = /^\/api\/v1\/sites\/([1-9][0-9]{0,14})\/articles$/

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://localhost")
  if (url.pathname === "/healthz") return send(res, 200, { status: "ok" })
  const match = req.method === "GET" ? listPath.exec(url.pathname) : null
  if (match === null) return send(res, 404, { error: "not_found", message: "No such route." })
  const siteId = Number(match[1])
  const page = pageParam(url.searchParams.get("page"), 1, Number.MAX_SAFE_INTEGER)
  const perPage = pageParam(url.searchParams.get("per_page"), 20, 100)
  if (page === undefined || perPage === undefined) {
    return send(res, 422, { error: "validation_error", message: "page and per_page must be integers in range." })
  }
  const key = keyOf(req.headers)
  if (key === undefined || !key.startsWith("cbs_") || key.length > 200) {
    return send(res, 401, { error: "unauthorized", message: "Send an API key." })
  }
  const handle = async () => {
    const hash = createHash("sha256").update(key, "utf8").digest()
    const found = await pool.query<KeyRow>(findKey, [hash])
    const credential = found.rows[0]
    if (credential === undefined || !timingSafeEqual(credential.key_hash, hash)) {
      return send(res, 401, { error: "unauthorized", message: "The API key is unknown or has been revoked." })
    }
    const site = await pool.query(findSite, [siteId, credential.is_admin ? null : credential.account_id])
    if (site.rowCount === 0) return send(res, 404, { error: "not_found", message: `No website with id ${siteId}.` })
    const rows = await pool.query(listArticles, [siteId, perPage, (page - 1) * perPage])
    const count = await pool.query<{ total: number }>(countArticles, [siteId])
    const total = count.rows[0]?.total ?? 0
    send(res, 200, {
      data: rows.rows,
      meta: { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) }
    })
  }
  handle().catch((error: unknown) => {
    console.log(`baseline: ${error instanceof Error ? error.message : String(error)}`)
    if (!res.headersSent) send(res, 500, { error: "internal_error", message: "Internal error." })
  })
})

server.listen(port, "127.0.0.1", () => console.log(`baseline listening on http://127.0.0.1:${port}`))

const stop = () => {
  server.close()
  server.closeAllConnections()
  void pool.end().finally(() => process.exit(0))
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
