import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Fiber } from "effect"

/**
 * Takes an article's row lock in a transaction of the test's own and holds it (on the embedded database, with its only
 * connection), so that no edit of the article can finish; once it is held. `release` lets go and waits for the
 * transaction to end.
 */
export const holdArticleRow = (id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const held = yield* Deferred.make<void>()
    const released = yield* Deferred.make<void>()
    const holder = yield* sql
      .withTransaction(
        Effect.gen(function* () {
          yield* sql`select id from articles where id = ${id} for update`
          yield* Deferred.succeed(held, undefined)
          yield* Deferred.await(released)
        })
      )
      .pipe(Effect.orDie, Effect.fork)
    yield* Deferred.await(held)
    return { release: Effect.zipRight(Deferred.succeed(released, undefined), Fiber.join(holder)) }
  })
