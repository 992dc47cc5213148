// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { cruise, type ICruiseResult } from "dependency-cruiser"
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options"
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config"
import { Effect } from "effect"

/**
 * The source tree as `npm run lint:deps` cruises it, with the project's rules (.dependency-cruiser.cjs): cruised once
 * for the file's tests.
 */
const cruised = Effect.promise(async (): Promise<ICruiseResult> => {
  const options = await extractDepcruiseOptions("./.dependency-cruiser.cjs")
  const { output } = await cruise(["src"], options, {}, { tsConfig: extractTSConfig("tsconfig.json") })
  if (typeof output === "string") throw new Error("the cruise answered text, not a result")
  return output
}).pipe(Effect.cached, Effect.runSync)

describe("the layering check", () => {
  it.effect("counts type-only imports: a web page's row types are dependencies it has", () =>
    Effect.gen(function* () {
      const { modules } = yield* cruised
      const page = modules.find((module) => module.source === "src/Web/ArticlePages.ts")
      assert.isDefined(page, "src/Web/ArticlePages.ts was not cruised")
      const revisions = page!.dependencies.find((dependency) => dependency.resolved === "src/Domain/Revision.ts")
      assert.isDefined(revisions, "the page's import of its revision types is not counted")
      assert.include(revisions!.dependencyTypes, "type-only")
    })
  )

  it.effect("finds no import against the rules, type-only imports included: no page takes a repository's types", () =>
    Effect.gen(function* () {
      const { summary } = yield* cruised
      assert.deepStrictEqual(
        summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`),
        []
      )
    })
  )
})
