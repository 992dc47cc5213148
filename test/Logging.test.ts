// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { Effect, FiberRef, HashSet, Logger } from "effect"
import { jsonLines } from "../src/Logging.js"

/** Runs `log` with a logger that writes each line both ways, and returns the pairs. */
const bothWays = (log: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const pairs: Array<[string, string]> = []
    const recorder = Logger.make((options) => {
      pairs.push([jsonLines.log(options), Logger.jsonLogger.log(options)])
    })
    yield* Effect.locally(log, FiberRef.currentLoggers, HashSet.make(recorder))
    return pairs
  })

describe("JSON log lines", () => {
  it.effect("are Effect's JSON logger's lines, character for character, quick way or not", () =>
    Effect.gen(function* () {
      const pairs = yield* bothWays(
        Effect.gen(function* () {
          // The quick way: a text message, plain annotations, a log span.
          yield* Effect.logInfo("Sent HTTP response").pipe(
            Effect.annotateLogs({ request_id: "abc", "http.status": 200, "http.url": '/a?b="c"', ok: true, no: null }),
            Effect.withLogSpan("outer")
          )
          yield* Effect.logWarning("plain, no annotations")
          // Effect's own way: several messages, a structured annotation, a cause, a non-text message.
          yield* Effect.logInfo("first", "second")
          yield* Effect.logInfo("with an object").pipe(Effect.annotateLogs("detail", { nested: [1, 2] }))
          yield* Effect.logError("Request failed", new Error("boom"))
          yield* Effect.logInfo({ structured: true })
          yield* Effect.logInfo(42n)
        })
      )
      assert.strictEqual(pairs.length, 7)
      for (const [quick, effects] of pairs) assert.strictEqual(quick, effects)
      assert.deepStrictEqual(JSON.parse(pairs[0]![0]).annotations, {
        request_id: "abc",
        "http.status": 200,
        "http.url": '/a?b="c"',
        ok: true,
        no: null
      })
    })
  )
})
