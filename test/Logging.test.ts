// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { Effect, FiberRef, HashSet, Logger, Option } from "effect"
import { jsonLines, logFormatOf, shortLines } from "../src/Logging.js"

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

describe("log lines for a person at a terminal", () => {
  it("are short by default on a terminal and JSON anywhere else; LOG_FORMAT chooses otherwise", () => {
    assert.strictEqual(logFormatOf(Option.none(), true), "short")
    assert.strictEqual(logFormatOf(Option.none(), false), "json")
    assert.strictEqual(logFormatOf(Option.some("json"), true), "json")
    assert.strictEqual(logFormatOf(Option.some("pretty"), false), "pretty")
  })

  it.effect("give an answered request as its method, address and status in one line, a tool call marked", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const recorder = Logger.make((options) => void lines.push(shortLines.log(options)))
      yield* Effect.locally(
        Effect.gen(function* () {
          yield* Effect.logInfo("Sent HTTP response").pipe(
            Effect.annotateLogs({
              request_id: "abc",
              "http.method": "GET",
              "http.url": "/api/v1/sites",
              "http.status": 200
            })
          )
          yield* Effect.logInfo("Answered in process").pipe(
            Effect.annotateLogs({ "http.method": "PATCH", "http.url": "/api/v1/articles/3", "http.status": 409 })
          )
          yield* Effect.logWarning("requests still running after 10s; shutting down anyway")
        }),
        FiberRef.currentLoggers,
        HashSet.make(recorder)
      )
      assert.strictEqual(lines.length, 3)
      assert.match(lines[0]!, /^\d\d:\d\d:\d\d GET \/api\/v1\/sites 200$/)
      assert.match(lines[1]!, /^\d\d:\d\d:\d\d PATCH \/api\/v1\/articles\/3 409 \(tool call\)$/)
      assert.match(lines[2]!, /^\d\d:\d\d:\d\d WARN requests still running after 10s; shutting down anyway$/)
    })
  )
})
