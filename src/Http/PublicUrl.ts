import { HttpServer, type HttpServerRequest } from "@effect/platform"
import { Context, Effect, Layer, Option } from "effect"
import { AppConfig, publicBaseUrl } from "../Config.js"

/** The address clients use to reach this server, without a trailing slash (PUBLIC_BASE_URL, else localhost). */
export class PublicUrl extends Context.Tag("Http/PublicUrl")<PublicUrl, string>() {}

export const PublicUrlLive = Layer.effect(
  PublicUrl,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const server = yield* HttpServer.HttpServer
    const port = server.address._tag === "TcpAddress" ? server.address.port : config.port
    return publicBaseUrl(config, port)
  })
)

/**
 * The base URL a request names the service by: PUBLIC_BASE_URL when it is set; without it, the loopback address the
 * client used (`localhost`, `127.0.0.1` or `[::1]`, on the server's port), so that a client on this machine given
 * `http://127.0.0.1:PORT/mcp` finds the OAuth metadata, the protected resource and the issuer named as it expects
 * (clients check that the resource is the address they were given); any other Host gets the default base.
 */
export class RequestBase extends Context.Tag("Http/RequestBase")<
  RequestBase,
  (request: HttpServerRequest.HttpServerRequest) => string
>() {}

export const RequestBaseLive = Layer.effect(
  RequestBase,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const base = yield* PublicUrl
    if (Option.isSome(config.publicBaseUrl)) return () => base
    const port = new URL(base).port
    const loopback = new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`])
    return (request: HttpServerRequest.HttpServerRequest) => {
      const host = (request.headers["host"] ?? "").toLowerCase()
      return loopback.has(host) ? `http://${host}` : base
    }
  })
).pipe(Layer.provideMerge(PublicUrlLive))
