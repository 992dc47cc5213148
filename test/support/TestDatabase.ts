import { randomBytes } from "node:crypto"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { inject } from "vitest"
import { layerEmbedded, layerPostgres } from "../../src/Sql/Database.js"
import { withDatabase } from "./globalSetup.js"

const adminQuery = (url: string, query: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(query)
    } finally {
      await client.end()
    }
  })

/**
 * A new database `cbs_test_…` on the server of `url` (a copy of `template` when given), dropped when the scope
 * closes: its URL.
 */
export const scopedDatabase = (url: string, template?: string) =>
  Effect.gen(function* () {
    const name = `cbs_test_${randomBytes(6).toString("hex")}`
    const copy = template === undefined ? "" : ` template ${template}`
    yield* Effect.acquireRelease(adminQuery(url, `create database ${name}${copy}`), () =>
      adminQuery(url, `drop database if exists ${name} with (force)`)
    )
    return withDatabase(url, name)
  })

/**
 * On the PostgreSQL leg (DATABASE_URL), the URL of a fresh copy of the migrated template database, dropped when the
 * scope closes; on the embedded leg, nothing.
 */
export const freshPostgresUrl = Effect.gen(function* () {
  const url = process.env["DATABASE_URL"]
  const template = inject("templateDatabase")
  if (url === undefined || url === "" || template === "") return undefined
  return yield* scopedDatabase(url, template)
})

/**
 * A data directory holding a copy of the migrated embedded template, removed when the scope closes. Opening a copy on
 * disk costs about half of loading a dump into memory.
 */
export const embeddedTemplateCopy = Effect.gen(function* () {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "cbs-test-db-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )
  cpSync(inject("embeddedTemplate"), join(dir, "pg"), { recursive: true })
  return join(dir, "pg")
})

/**
 * The connections of a test file's pool: five on PostgreSQL; on the embedded database, one connection and one
 * session.
 */
export const TEST_POOL_SIZE = (process.env["DATABASE_URL"] ?? "") === "" ? 1 : 5

/**
 * A fresh, migrated database for one test file: a copy of the template database on real PostgreSQL
 * (DATABASE_URL), or a copy of the migrated embedded template, removed when the file is done.
 */
export const TestDatabaseLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const url = yield* freshPostgresUrl
    if (url !== undefined) return layerPostgres(Redacted.make(url), TEST_POOL_SIZE)
    return layerEmbedded({ dataDir: yield* embeddedTemplateCopy })
  })
)
