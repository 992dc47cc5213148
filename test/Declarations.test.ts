// @tags: unit
import { HttpApi, HttpApiError } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, SchemaAST } from "effect"
import { build } from "esbuild"
import { Api } from "../src/Api.js"
import * as Errors from "../src/Domain/Errors.js"

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

/** The public errors (see `PublicError`): every class of src/Domain/Errors.ts with a wire body. */
const publicErrors = Object.values(Errors).flatMap((value) =>
  typeof value === "function" && "Body" in value && "answer" in value ? [value] : []
)

/** The members of an error schema as the framework lists them under one status. */
const membersOf = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> =>
  SchemaAST.isUnion(ast) ? ast.types.flatMap(membersOf) : [ast]

/** The same schema, or the same schema annotated again by the framework (which keeps its sides). */
const sameSchema = (a: SchemaAST.AST, b: SchemaAST.AST) =>
  a === b || (SchemaAST.isTransformation(a) && SchemaAST.isTransformation(b) && a.from === b.from && a.to === b.to)

/** What is wrong with an error schema declared under `status`, if anything. */
const misdeclared = (status: number, ast: SchemaAST.AST) => {
  // The framework's own decode failure, declared on every API and answered as 422 validation_error (ClientErrors).
  if (sameSchema(ast, HttpApiError.HttpApiDecodeError.ast)) return []
  const error = publicErrors.find((cls) => sameSchema(ast, cls.Body.ast))
  if (error === undefined) return [`${status}: ${String(ast)} is not a public error's Body`]
  if (status < 400 || status >= 600 || status !== error.answer.status) {
    return [`${status}: ${error._tag} is declared under ${status}, not ${error.answer.status}`]
  }
  return []
}

/** Every error an endpoint of `Api` declares, its middleware's included, that is not a public error's wire body. */
const misdeclaredErrors = () => {
  const problems: Array<string> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, errors, middleware }) => {
      const declared = [...errors].flatMap(([status, { ast }]) =>
        Option.match(ast, {
          onNone: () => [],
          onSome: (ast) => membersOf(ast).map((member) => [status, member] as const)
        })
      )
      const failures = [...middleware].flatMap((tag) =>
        membersOf(tag.failure.ast).map((member) => [0, member] as const)
      )
      for (const [status, member] of declared)
        problems.push(...misdeclared(status, member).map((p) => `${endpoint.name} ${p}`))
      for (const [, member] of failures) {
        const error = publicErrors.find((cls) => sameSchema(member, cls.Body.ast))
        if (error === undefined && !SchemaAST.isNeverKeyword(member)) {
          problems.push(`${endpoint.name}: a middleware fails with ${String(member)}, not a public error's Body`)
        }
      }
    }
  })
  return problems
}

describe("errors are declared by their wire bodies", () => {
  it("every error of every endpoint, its middleware's included, is a public error's Body under its own 4xx/5xx status", () => {
    assert.isAbove(publicErrors.length, 10)
    assert.deepStrictEqual(misdeclaredErrors(), [])
  })
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
