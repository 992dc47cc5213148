import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Redacted } from "effect"
import pg from "pg"
import type { TestProject } from "vitest/node"
import { embeddedServer, layerEmbeddedClient, layerPostgres, migrate } from "../../src/Database.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** With DATABASE_URL: the migrated template database each test file copies. */
    templateDatabase: string
    /** Without it: a dump of a migrated embedded database each test file loads. */
    embeddedDump: string
  }
}

/** Replaces the database name of a connection string. */
export const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/**
 * Builds the program if needed, and migrates once for the whole run. With DATABASE_URL (real PostgreSQL) into a template database; without it
 * into an in-memory embedded database whose data directory is dumped to a file.
 */
export default async function setup(project: TestProject) {
  // Tests that start `cbs` as a child process run the compiled program (bin/cbs.js → dist/): built from these
  // sources if they changed since the last build.
  execFileSync(process.execPath, ["scripts/build.js", "--if-stale"], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    stdio: "inherit"
  })
  const url = process.env["DATABASE_URL"]
  if (url !== undefined && url !== "") {
    const template = `cbs_test_tpl_${process.pid}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(`drop database if exists ${template}`)
    await admin.query(`create database ${template}`)
    await Effect.runPromise(
      migrate.pipe(Effect.provide(layerPostgres(Redacted.make(withDatabase(url, template)), 1)), Effect.scoped)
    )
    project.provide("templateDatabase", template)
    project.provide("embeddedDump", "")
    return async () => {
      await admin.query(`drop database if exists ${template} with (force)`)
      await admin.end()
    }
  }
  const dir = mkdtempSync(join(tmpdir(), "cbs-test-"))
  const file = join(dir, "migrated.tar.gz")
  const dump = await Effect.runPromise(
    Effect.gen(function* () {
      const server = yield* embeddedServer({})
      yield* migrate.pipe(Effect.provide(layerEmbeddedClient(server)))
      return yield* Effect.promise(() => server.db.dumpDataDir("gzip"))
    }).pipe(Effect.scoped)
  )
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
  project.provide("templateDatabase", "")
  project.provide("embeddedDump", file)
  return () => rmSync(dir, { recursive: true, force: true })
}
