// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { build } from "esbuild"

/** Packages that hold a database client or a server; a declaration has no business loading them. */
const serverPackages = [/^pg$/, /^@effect\/sql/, /^@electric-sql\//, /^@effect\/platform-node/, /^node:(http|net)$/]

/** Our modules that hold SQL, a service or the server. */
const serverModules = [/Repo\.ts$/, /\/Sql\//, /\/Server\//, /\/(Server|Database|PgPool|SqlFormats|Config)\.ts$/]

/**
 * The modules `entry` loads, ours and packages', as the bundler resolves them: what a runtime import of it would
 * evaluate (type-only imports are dropped, as they are at run time).
 */
const moduleGraph = (entry: string) =>
  Effect.promise(async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      metafile: true,
      write: false,
      platform: "node",
      format: "esm",
      packages: "external",
      logLevel: "silent"
    })
    const inputs = Object.entries(result.metafile.inputs)
    return {
      modules: inputs.map(([file]) => file),
      packages: [...new Set(inputs.flatMap(([, input]) => input.imports.filter((i) => i.external).map((i) => i.path)))]
    }
  })

describe("declarations are declarations", () => {
  it.effect("importing src/Api.ts loads no repository, SQL, database client or server code", () =>
    Effect.gen(function* () {
      const { modules, packages } = yield* moduleGraph("src/Api.ts")
      // The graph is really the API's: its middleware tags and a feature's declarations are in it.
      assert.include(modules, "src/Api/Middleware.ts")
      assert.include(modules, "src/Articles/Api.ts")
      assert.deepStrictEqual(
        modules.filter((file) => serverModules.some((pattern) => pattern.test(file))),
        [],
        modules.join("\n")
      )
      assert.deepStrictEqual(
        packages.filter((name) => serverPackages.some((pattern) => pattern.test(name))),
        [],
        packages.join("\n")
      )
    })
  )

  it.effect("the declarations load no feature's service, handlers or middleware implementation", () =>
    Effect.gen(function* () {
      const { modules } = yield* moduleGraph("src/Api.ts")
      // Nothing but the declarations: the root, src/Api/, src/Domain/ and each feature's Api.ts.
      const others = modules.filter((file) => !/^src\/(Api\.ts$|Api\/|Domain\/|[A-Za-z]+\/Api\.ts$)/.test(file))
      assert.deepStrictEqual(others, [])
    })
  )
})
