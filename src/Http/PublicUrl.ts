import { HttpServer } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
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
