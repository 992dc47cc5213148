import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, type Exit, Layer, Option } from "effect"
import { AuditLog } from "../Audit.js"
import { RateLimited, Unauthorized } from "../Domain/Errors.js"
import { RequestId } from "../Http/RequestId.js"
import { Limits, type RequestAllowance } from "../Limits.js"
import { Authentication } from "./Api.js"
import { ApiKeys } from "./ApiKeys.js"
import type { Credential } from "./CurrentCredential.js"

const bearerPattern = /^Bearer[ \t]+(\S+)[ \t]*$/i

/**
 * Reads the API key from the request: `Authorization: Bearer <key>` when that header is present (even if
 * `X-API-Key` is too), otherwise `X-API-Key`.
 */
export const keyFromHeaders = (headers: Readonly<Record<string, string | undefined>>) => {
  const authorization = headers["authorization"]
  if (authorization !== undefined) {
    const match = bearerPattern.exec(authorization)
    return match === null
      ? Effect.fail(new Unauthorized({ message: "The Authorization header must be 'Bearer <API key>'." }))
      : Effect.succeed(match[1]!)
  }
  const apiKey = headers["x-api-key"]?.trim()
  return apiKey === undefined || apiKey === ""
    ? Effect.fail(
        new Unauthorized({ message: "Send an API key as 'Authorization: Bearer <API key>' or 'X-API-Key: <API key>'." })
      )
    : Effect.succeed(apiKey)
}

/** `RateLimit-*` headers (and `Retry-After` on a 429 that has none) for every authenticated response. */
export const withLimitHeaders = (
  response: HttpServerResponse.HttpServerResponse,
  allowance: RequestAllowance,
  editsPerDay: number
) => {
  const headers: Record<string, string> = {
    "ratelimit-limit": String(allowance.limit),
    "ratelimit-remaining": String(allowance.remaining),
    "ratelimit-reset": String(allowance.reset),
    "ratelimit-policy": `"requests";q=${allowance.limit};w=60, "edits";q=${editsPerDay};w=86400`
  }
  if (response.status === 429 && response.headers["retry-after"] === undefined) {
    headers["retry-after"] = String(allowance.reset)
  }
  return HttpServerResponse.setHeaders(response, headers)
}

const articlePath = /^\/api\/v1\/articles\/([1-9][0-9]{0,14})(?:\/|$)/

/** The article a request path concerns, if any (for the article page's activity log). */
export const articleIdOfPath = (path: string): number | null => {
  const match = articlePath.exec(path)
  return match === null ? null : Number(match[1])
}

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const limits = yield* Limits
    const audit = yield* AuditLog

    /** Counts the request, and arranges for the response to carry the limit headers and be recorded. */
    const admit = (request: HttpServerRequest.HttpServerRequest, credential: Credential) =>
      Effect.gen(function* () {
        const started = yield* Clock.currentTimeMillis
        const requestId = yield* RequestId
        const allowance = yield* limits.countRequest(credential)
        yield* HttpApp.appendPreResponseHandler((_request, response) =>
          Effect.gen(function* () {
            const ended = yield* Clock.currentTimeMillis
            const path = request.url.split("?")[0] ?? request.url
            // Recorded before the response leaves, so a call that was answered is never missing from the log.
            yield* audit.record({
              at: new Date(started).toISOString(),
              account_id: credential.accountId,
              api_key_id: credential.kind === "api_key" ? credential.id : null,
              user_id: credential.kind === "user" ? credential.id : null,
              origin: "API",
              method: request.method,
              path,
              tool: null,
              article_id: articleIdOfPath(path),
              status: response.status,
              duration_ms: Math.max(0, Math.round(ended - started)),
              request_id: requestId === "" ? null : requestId
            })
            return withLimitHeaders(response, allowance, limits.editsPerDay)
          })
        )
        if (allowance.exceeded) {
          return yield* new RateLimited({
            message: `More than ${allowance.limit} requests in a minute; retry after ${allowance.reset} s.`,
            limit: allowance.limit
          })
        }
        return credential
      })

    const authenticate = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = yield* keyFromHeaders(request.headers)
      const credential = yield* keys.authenticate(key)
      if (Option.isNone(credential)) {
        return yield* new Unauthorized({ message: "The API key is unknown or has been revoked." })
      }
      return yield* admit(request, credential.value)
    })

    // Both documented schemes run one check that reads the headers itself (so "Authorization first, and a bad
    // one is a 401" holds whatever order the framework tries them in). The framework runs the second scheme when
    // the first fails; the outcome is remembered per request so that a request is counted and logged once.
    const outcomes = new WeakMap<object, Exit.Exit<Credential, Unauthorized | RateLimited>>()
    const once = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const known = outcomes.get(request)
      if (known !== undefined) return yield* known
      const exit = yield* Effect.exit(authenticate)
      outcomes.set(request, exit)
      return yield* exit
    })
    return { bearer: () => once, apiKey: () => once }
  })
)
