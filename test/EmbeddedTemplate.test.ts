// @tags: engine
import { chmodSync, cpSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { layerEmbedded } from "../src/Sql/Database.js"
import { startFromTemplate, templateDirectory } from "../src/Sql/EmbeddedTemplate.js"
import { tempDir } from "./support/CbsProcess.js"

/** `dir` and every path below it. */
const treeOf = (dir: string) => [
  dir,
  ...readdirSync(dir, { recursive: true, encoding: "utf8" }).map((p) => join(dir, p))
]

/** Sets the mode of every path in `dir`, by its kind. */
const chmodTree = (dir: string, modes: { readonly directory: number; readonly file: number }) => {
  for (const path of treeOf(dir)) chmodSync(path, statSync(path).isDirectory() ? modes.directory : modes.file)
}

/** A copy of the build's template, read-only as an installed one in the Nix store is, until the scope closes. */
const readOnlyTemplate = (dir: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const template = join(dir, "template")
      cpSync(templateDirectory, template, { recursive: true })
      chmodTree(template, { directory: 0o555, file: 0o444 })
      return template
    }),
    // Writable again, so that the temporary directory can be removed by a user other than root.
    (template) => Effect.sync(() => chmodTree(template, { directory: 0o755, file: 0o644 }))
  )

describe("a new embedded database from the build's template", () => {
  it.scoped(
    "copied from a read-only template, it is its owner's to write, and the database opens and takes writes",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("cbs-template-test-")
        const template = yield* readOnlyTemplate(dir)
        const pgDir = join(dir, "data", "pg")

        const started = yield* startFromTemplate(pgDir, () => Effect.void, template)

        assert.strictEqual(started, "template")
        // Checked by mode, not by writing: root may write anywhere, and tests can run as root.
        const notWritable = treeOf(pgDir).filter((path) => {
          const stat = statSync(path)
          const wanted = stat.isDirectory() ? 0o700 : 0o600
          return (stat.mode & wanted) !== wanted
        })
        assert.deepStrictEqual(notWritable.slice(0, 5), [], `${notWritable.length} paths are not writable, e.g.`)
        const written = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`create table probe (n int)`
          yield* sql`insert into probe values (1)`
          return yield* sql<{ readonly n: number }>`select n from probe`
        }).pipe(Effect.provide(layerEmbedded({ dataDir: pgDir }).pipe(Layer.orDie)), Effect.scoped)
        assert.deepStrictEqual(written, [{ n: 1 }])
      })
  )
})
