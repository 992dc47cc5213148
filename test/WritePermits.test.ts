// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { WritePermits } from "../src/Articles/WritePermits.js"
import { MAX_CONCURRENT_WRITES } from "../src/Domain/ArticleEdits.js"
import type { AccountId } from "../src/Domain/Ids.js"

const A = 1 as AccountId
const B = 2 as AccountId

/** A write that says when it starts and then holds its permit until `release` is completed. */
const write = (permits: WritePermits, account: AccountId) =>
  Effect.gen(function* () {
    const started = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const fiber = yield* Effect.fork(
      permits.withPermit(account, Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release)))
    )
    return { started, release, fiber }
  })

describe("WritePermits", () => {
  it.effect(
    `at most ${MAX_CONCURRENT_WRITES} writes of one account run at once; another account's write is not held up`,
    () =>
      Effect.gen(function* () {
        const permits = yield* WritePermits
        const running = yield* Effect.forEach(Array.from({ length: MAX_CONCURRENT_WRITES }), () => write(permits, A))
        for (const each of running) yield* Deferred.await(each.started)
        const waiting = yield* write(permits, A)
        const other = yield* write(permits, B)
        // The other account's write starts while the first account's permits are all taken...
        yield* Deferred.await(other.started)
        // ...and the first account's next write has not started: its permits are held by writes still running.
        assert.isFalse(yield* Deferred.isDone(waiting.started))
        yield* Deferred.succeed(running[0]!.release, undefined)
        yield* Deferred.await(waiting.started)
        for (const each of [...running, waiting, other]) {
          yield* Deferred.succeed(each.release, undefined)
          yield* Fiber.join(each.fiber)
        }
      }).pipe(Effect.provide(WritePermits.Default))
  )

  it.effect("a write that fails or is interrupted gives its permit back", () =>
    Effect.gen(function* () {
      const permits = yield* WritePermits
      for (let i = 0; i < MAX_CONCURRENT_WRITES + 1; i++) {
        const failed = yield* permits.withPermit(A, Effect.fail("refused")).pipe(Effect.flip)
        assert.strictEqual(failed, "refused")
      }
      const held = yield* Effect.forEach(Array.from({ length: MAX_CONCURRENT_WRITES }), () => write(permits, A))
      for (const each of held) yield* Deferred.await(each.started)
      for (const each of held) yield* Fiber.interrupt(each.fiber)
      const next = yield* write(permits, A)
      yield* Deferred.await(next.started)
      yield* Deferred.succeed(next.release, undefined)
      yield* Fiber.join(next.fiber)
    }).pipe(Effect.provide(WritePermits.Default))
  )
})
