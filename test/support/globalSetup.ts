import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Redacted } from "effect"
import pg from "pg"
import type { TestProject } from "vitest/node"
import { layerPostgres, migrate } from "../../src/Sql/Database.js"
import { templateDirectory } from "../../src/Sql/EmbeddedTemplate.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** With DATABASE_URL: the migrated template database each test file copies. */
    templateDatabase: string
    /** Without it: the migrated embedded database (a data directory) each test file opens a copy of. */
    embeddedTemplate: string
  }
}

/** Replaces the database name of a connection string. */
export const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/**
 * Builds the program if needed (which also makes the migrated embedded template), and with DATABASE_URL (real
 * PostgreSQL) migrates a template database once for the whole run.
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
    // The tests of the embedded server itself open a copy of the template on PostgreSQL runs too.
    project.provide("embeddedTemplate", existsSync(join(templateDirectory, "PG_VERSION")) ? templateDirectory : "")
    return async () => {
      await admin.query(`drop database if exists ${template} with (force)`)
      await admin.end()
    }
  }
  // The build made a migrated embedded database (dist/embedded-template): each test file opens a copy of it.
  if (!existsSync(join(templateDirectory, "PG_VERSION")))
    throw new Error(`no embedded template in ${templateDirectory}`)
  project.provide("templateDatabase", "")
  project.provide("embeddedTemplate", templateDirectory)
}
