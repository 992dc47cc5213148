import { createHash } from "node:crypto"
import { HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Either, Option } from "effect"
import { noteCall } from "../Api/Middleware.js"
import type { Credential } from "../Domain/Credential.js"
import { IdempotencyKeyInUse, IdempotencyKeyReused, publicError } from "../Domain/Errors.js"
import { credentialKey } from "../Limits/Limits.js"
import { IdempotencyRepo } from "./Repo.js"

/** How long an answer is kept under its key. */
const KEPT_MS = 24 * 60 * 60_000

const JSON_TYPE = "application/json"

/**
 * Whether an answer describes the request, and so is kept under its key: a 429 says something about a limit at
 * that moment, and a 5xx about the service, not about the request; a retry of either must run again.
 */
const describesRequest = (status: number) => status !== 429 && status < 500

/**
 * `Idempotency-Key` on article writes: the first request under a key (per credential) runs, and its answer is kept
 * 24 hours in the database, so every instance honours it. The same key with the same request replays that answer,
 * marked `Idempotent-Replayed: true`, and changes nothing; with a different request it is 422
 * `idempotency_key_reused`; while the first still runs, 409 `idempotency_key_in_use`.
 *
 * Exactly once under faults: the request runs in one transaction that holds the key (see `IdempotencyRepo.take`),
 * makes the change and keeps its answer, so a change commits with its answer or not at all. A request that ends
 * without committing (a lost connection, a client that went away, a process that died) leaves nothing under the
 * key, and a retry runs. Answers that do not describe the request (a 429 for a limit, a 5xx) are not kept.
 */
export class Idempotency extends Effect.Service<Idempotency>()("Idempotency/Idempotency", {
  dependencies: [IdempotencyRepo.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* IdempotencyRepo

    /**
     * Runs `run` at most once per credential and key. `request` is what makes two requests the same (method, path
     * and body); `answer` is the JSON body of a success, as the endpoint sends it. Without a key, `run` is all.
     */
    const once = <A, E, R>(
      credential: Credential,
      key: string | undefined,
      request: string,
      run: Effect.Effect<A, E, R>,
      answer: (success: A) => string
    ): Effect.Effect<A | HttpServerResponse.HttpServerResponse, E | IdempotencyKeyInUse | IdempotencyKeyReused, R> => {
      if (key === undefined) return run
      return Effect.gen(function* () {
        const owner = credentialKey(credential)
        const digest = createHash("sha256").update(request).digest("hex")
        const now = yield* Clock.currentTimeMillis
        if (!(yield* repo.take(owner, key))) {
          return yield* new IdempotencyKeyInUse({
            message: "A request with this Idempotency-Key is still running; retry once it has been answered."
          })
        }
        const found = yield* repo.find(owner, key, new Date(now - KEPT_MS).toISOString())
        if (Option.isSome(found)) {
          if (found.value.request_sha256 !== digest) {
            return yield* new IdempotencyKeyReused({
              message: "This Idempotency-Key was used for a different request in the last 24 hours; use a new key."
            })
          }
          const { status, body, content_type } = found.value
          yield* noteCall("replay")
          return HttpServerResponse.text(body, {
            status,
            contentType: content_type,
            headers: { "idempotent-replayed": "true" }
          })
        }
        // The change runs inside this transaction (its own is a savepoint of it), so its answer commits with it.
        const outcome = yield* Effect.either(run)
        const sent = Either.match(outcome, {
          onRight: (success) => ({ status: 200, body: answer(success) }),
          onLeft: (error) => {
            const { status, body } = publicError(error)
            return { status, body: JSON.stringify(body) }
          }
        })
        // Not kept: the transaction rolls back (the change, if any, with it) and the failure is answered as usual.
        if (Either.isLeft(outcome) && !describesRequest(sent.status)) return yield* Effect.fail(outcome.left)
        yield* repo.keep(owner, key, { digest, ...sent, contentType: JSON_TYPE })
        return HttpServerResponse.text(sent.body, { status: sent.status, contentType: JSON_TYPE })
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
    }

    /** Deletes keys older than 24 hours; returns how many. */
    const prune = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      repo.pruneBefore(new Date(now - KEPT_MS).toISOString())
    )

    return { once, prune }
  })
}) {}
