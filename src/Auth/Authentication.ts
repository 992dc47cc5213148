import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { Authentication, Door } from "../Api/Middleware.js"
import type { CredentialRefusal } from "../Domain/Credential.js"
import { Unauthorized } from "../Domain/Errors.js"
import { pathOf } from "../Http/RequestPath.js"
import { AuthFailures } from "../Limits/AuthFailures.js"
import { Limits } from "../Limits/Limits.js"
import { ApiKeys } from "./ApiKeys.js"

type Headers = Readonly<Record<string, string | undefined>>

const bearerPattern = /^Bearer[ \t]+(\S+)[ \t]*$/i

/**
 * The token of an `Authorization: Bearer <token>` header: None without the header, Some(None) when the header is
 * there but malformed. Used for API keys and OAuth access tokens alike; query-string tokens are never read.
 */
export const bearerToken = (headers: Headers): Option.Option<Option.Option<string>> =>
  Option.map(Option.fromNullable(headers["authorization"]), (value) =>
    Option.fromNullable(bearerPattern.exec(value)?.[1])
  )

/**
 * Reads the API key from the request: `Authorization: Bearer <key>` when that header is present (even if
 * `X-API-Key` is too), otherwise `X-API-Key`.
 */
export const keyFromHeaders = (headers: Headers) =>
  Option.match(bearerToken(headers), {
    onSome: Option.match({
      onNone: () => Effect.fail(new Unauthorized({ message: "The Authorization header must be 'Bearer <API key>'." })),
      onSome: (key) => Effect.succeed(key)
    }),
    onNone: () => {
      const apiKey = headers["x-api-key"]?.trim()
      return apiKey === undefined || apiKey === ""
        ? Effect.fail(
            new Unauthorized({
              message: "Send an API key as 'Authorization: Bearer <API key>' or 'X-API-Key: <API key>'."
            })
          )
        : Effect.succeed(apiKey)
    }
  })

/** What a refused API key is told; none of it says anything about whose key it is or was. */
const refusalMessages: Readonly<Record<Exclude<CredentialRefusal, "expired">, string>> = {
  unknown: "The API key is unknown; check that it was copied whole.",
  revoked: "The API key has been revoked; use another key, or create one on the connection page."
}

/** Sets `headers` on the response to the request being served, when it is answered with `status`. */
const answeredWith = (status: number, headers: Readonly<Record<string, string>>) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(response.status === status ? HttpServerResponse.setHeaders(response, headers) : response)
  )

/**
 * The door of requests from the network: the caller is the API key the headers name, and the statement that finds
 * the key also counts the request against its per-minute limit (one round trip instead of two). Provided once, in
 * the server's context.
 */
export const NetworkDoor = Effect.gen(function* () {
  const keys = yield* ApiKeys
  const limits = yield* Limits
  const failures = yield* AuthFailures

  /**
   * A key that was sent and refused: 401 saying why (with the challenge's `error_description`), or 429 when its
   * client address has failed too often this minute. Only refused keys come here, so a valid one never waits on it.
   */
  const refused = (request: HttpServerRequest.HttpServerRequest, key: string) =>
    Effect.gen(function* () {
      const throttled = yield* failures.count(request)
      if (Option.isSome(throttled)) return yield* throttled.value
      const message = refusalMessages[yield* keys.refusal(key)]
      yield* answeredWith(401, {
        "www-authenticate": `Bearer realm="content-backlink-service", error="invalid_token", error_description="${message}"`
      })
      return yield* new Unauthorized({ message })
    })

  return Door.of({
    authenticate: Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = yield* keyFromHeaders(request.headers)
      const window = yield* limits.currentWindow
      const found = yield* keys.authenticateCounting(key, window)
      if (Option.isNone(found)) return yield* refused(request, key)
      const { credential, count, edits } = found.value
      return { credential, origin: "API", requests: yield* limits.allowanceAfter(credential, window, count, edits) }
    }),
    callName: (request) => ({ method: request.method, path: pathOf(request.url), tool: null }),
    // Its answers state the limits in their headers.
    limitsLeft: () => Effect.void
  })
})

const deferred = new Unauthorized({ message: "Checked by the next scheme." })

/** The door the request came through says who is calling (see `Door`). */
const authenticate = Effect.flatMap(Door, (door) => door.authenticate)

/**
 * Both documented schemes run the one check of the request's door, which reads the headers itself (so
 * "Authorization first, and a bad one is a 401" holds). The framework tries the schemes in order and answers with the
 * last one's failure when all fail: the first scheme defers to the second, so the check runs once.
 */
export const AuthenticationLive = Layer.succeed(Authentication, {
  bearer: () => Effect.fail(deferred),
  apiKey: () => authenticate
})
