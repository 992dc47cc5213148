import { HttpServerRequest } from "@effect/platform"
import { Effect, type Exit, Layer, Option } from "effect"
import type { Credential } from "../Domain/Credential.js"
import { Unauthorized } from "../Domain/Errors.js"
import { Limits } from "../Limits.js"
import { Authentication } from "./Api.js"
import { ApiKeys } from "./ApiKeys.js"
import { ToolCaller } from "./CurrentCredential.js"

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

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const limits = yield* Limits

    const authenticate = Effect.gen(function* () {
      // An agent's tool call carries its user in the context: the headers of the enclosing request are not read.
      const tool = yield* Effect.serviceOption(ToolCaller)
      if (Option.isSome(tool)) return tool.value.credential
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = yield* keyFromHeaders(request.headers)
      // The statement that finds the key also counts the request against its per-minute limit (one round trip
      // instead of two); RequestLimit then judges the count and sets the headers.
      const window = yield* limits.currentWindow
      const found = yield* keys.authenticateCounting(key, window)
      if (Option.isNone(found)) {
        return yield* new Unauthorized({ message: "The API key is unknown or has been revoked." })
      }
      const { credential, count } = found.value
      yield* limits.countedWith(request, credential, window, count)
      return credential
    })

    // Both documented schemes run one check that reads the headers itself (so "Authorization first, and a bad one
    // is a 401" holds whatever order the framework tries them in). The framework tries the second scheme when the
    // first fails; the outcome is remembered per request so that the key is looked up once.
    const outcomes = new WeakMap<object, Exit.Exit<Credential, Unauthorized>>()
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
