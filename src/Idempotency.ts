import { createHash } from "node:crypto"
import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import type { Credential } from "./Domain/Credential.js"
import { IdempotencyKeyInUse, IdempotencyKeyReused } from "./Domain/Errors.js"
import { IdempotencyRepo } from "./Idempotency/Repo.js"
import { credentialKey } from "./Limits.js"

/** How long an answer is kept under its key. */
const KEPT_MS = 24 * 60 * 60_000

const textOf = (response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  if (body._tag === "Uint8Array") return new TextDecoder().decode(body.body)
  if (body._tag === "Raw" && typeof body.body === "string") return body.body
  return ""
}

/**
 * `Idempotency-Key` on article writes: the first request under a key (per credential) runs, and its answer (status
 * and body, whatever it was short of a 5xx) is kept 24 hours in the database, so every instance honours it. The same
 * key with the same request replays that answer, marked `Idempotent-Replayed: true`, and changes nothing; with a
 * different request it is 422 `idempotency_key_reused`; while the first still runs, 409 `idempotency_key_in_use`.
 * A first request that fails with a 5xx gives its key back, so that a retry can run.
 */
export class Idempotency extends Effect.Service<Idempotency>()("Idempotency", {
  dependencies: [IdempotencyRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* IdempotencyRepo

    const once = <A, E, R>(
      credential: Credential,
      key: string | undefined,
      /** What makes two requests the same: method, path and body. */
      request: string,
      run: Effect.Effect<A, E, R>
    ): Effect.Effect<A | HttpServerResponse.HttpServerResponse, E | IdempotencyKeyInUse | IdempotencyKeyReused, R> => {
      if (key === undefined) return run
      return Effect.gen(function* () {
        const owner = credentialKey(credential)
        const digest = createHash("sha256").update(request).digest("hex")
        const now = yield* Clock.currentTimeMillis
        const claimed = yield* repo.claim(owner, key, digest, new Date(now - KEPT_MS).toISOString())
        if (!claimed) {
          const found = yield* repo.find(owner, key)
          if (Option.isNone(found) || found.value.status === null) {
            return yield* new IdempotencyKeyInUse({
              message: "A request with this Idempotency-Key is still running; retry once it has been answered."
            })
          }
          if (found.value.request_sha256 !== digest) {
            return yield* new IdempotencyKeyReused({
              message: "This Idempotency-Key was used for a different request in the last 24 hours; use a new key."
            })
          }
          const answer = found.value
          return HttpServerResponse.text(answer.body ?? "", {
            status: answer.status ?? 200,
            contentType: answer.content_type ?? "application/json",
            headers: { "idempotent-replayed": "true" }
          })
        }
        yield* HttpApp.appendPreResponseHandler((_request, response) =>
          Effect.as(
            response.status >= 500
              ? repo.release(owner, key)
              : repo.keep(owner, key, {
                  status: response.status,
                  body: textOf(response),
                  contentType: response.headers["content-type"] ?? "application/json"
                }),
            response
          )
        )
        return yield* run
      })
    }

    /** Deletes keys older than 24 hours; returns how many. */
    const prune = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      repo.pruneBefore(new Date(now - KEPT_MS).toISOString())
    )

    return { once, prune }
  })
}) {}
