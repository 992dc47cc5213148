import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { Unauthorized } from "../Domain/Errors.js"
import { Authentication } from "./Api.js"
import { ApiKeys } from "./ApiKeys.js"

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

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    // Both documented schemes run the same check: the headers are read here, not by the scheme decoders, so that
    // the order and the "bad Authorization is a 401" rule hold whichever scheme the framework tries first.
    const authenticate = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = yield* keyFromHeaders(request.headers)
      const credential = yield* keys.authenticate(key)
      return yield* Option.match(credential, {
        onNone: () => Effect.fail(new Unauthorized({ message: "The API key is unknown or has been revoked." })),
        onSome: Effect.succeed
      })
    })
    return { bearer: () => authenticate, apiKey: () => authenticate }
  })
)
