import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../../src/Api.js"
import { TestApp } from "./TestServer.js"

/**
 * The typed client of the whole API against the test server, sending `key` as `Authorization: Bearer`.
 * Requests are encoded and responses decoded with the API's own schemas: a declared error arrives as its tagged
 * class from `src/Domain/Errors.ts` (`NotFound`, `ValidationError`, …) in the error channel. Because requests are
 * encoded, the client cannot send what the schemas refuse (`per_page=101`, a malformed date); those requests are
 * sent with `request` (Http.ts).
 */
export const apiClient = (key: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    return yield* HttpApiClient.make(Api, {
      baseUrl: app.baseUrl,
      transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(key))
    })
  }).pipe(Effect.provide(FetchHttpClient.layer))

export type ApiClient = Effect.Effect.Success<ReturnType<typeof apiClient>>

/**
 * The error a call fails with, for asserting on a typed error body. A call that succeeds fails the test with the
 * value it returned.
 */
export const failureOf = <A, E, R>(call: Effect.Effect<A, E, R>): Effect.Effect<E, never, R> =>
  call.pipe(
    Effect.flatMap((value) => Effect.dieMessage(`expected the call to fail, it returned ${JSON.stringify(value)}`)),
    Effect.flip
  )
