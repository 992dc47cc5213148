import { FileSystem } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect } from "effect"
import { packagePath } from "./PackageRoot.js"

/**
 * A migrated embedded database that the build makes once (scripts/build.js, through BuildTemplate.ts). A new data
 * directory starts as a copy of it: copying takes a fraction of the time that initdb and the migrations take.
 */
export const templateDirectory = packagePath("dist", "embedded-template")

/**
 * Gives the owner of `dir` and of everything in it read and write access (and search, for directories). A copy keeps
 * the modes of what it copies, and an installed template can be read-only (every file of the Nix store is).
 */
const makeWritable = (fs: FileSystem.FileSystem, dir: string) =>
  Effect.gen(function* () {
    const entries = yield* fs.readDirectory(dir, { recursive: true })
    yield* Effect.forEach(
      [dir, ...entries.map((entry) => `${dir}/${entry}`)],
      (path) =>
        Effect.flatMap(fs.stat(path), (info) =>
          fs.chmod(path, (info.mode & 0o7777) | (info.type === "Directory" ? 0o700 : 0o600))
        ),
      { discard: true }
    )
  })

/**
 * Makes `pgDir` a copy of the template when it does not exist yet (or is empty) and the template does. Returns
 * `existing` for a database already there, `template` for a copy, `none` when there is no template (PGlite then
 * creates the database itself). The copy is made under another name, made writable, and renamed into place, so that
 * a copy cut short never looks like a database.
 */
export const startFromTemplate = (
  pgDir: string,
  say: (line: string) => Effect.Effect<void>,
  template: string = templateDirectory
) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const present = yield* fs.exists(pgDir)
    if (present && (yield* fs.readDirectory(pgDir)).length > 0) return "existing" as const
    if (!(yield* fs.exists(`${template}/PG_VERSION`))) return "none" as const
    yield* say(`Creating the embedded database in ${pgDir}…`)
    const draft = `${pgDir}.${process.pid}.tmp`
    yield* fs.remove(draft, { recursive: true, force: true })
    yield* fs.copy(template, draft)
    yield* makeWritable(fs, draft)
    if (present) yield* fs.remove(pgDir, { recursive: true })
    yield* fs.rename(draft, pgDir)
    return "template" as const
  }).pipe(Effect.orDie, Effect.provide(NodeContext.layer), Effect.withSpan("EmbeddedTemplate.startFromTemplate"))
