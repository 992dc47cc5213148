import { HttpServer } from "@effect/platform"
import { Console, Context, Duration, Effect, Layer, Option, Scope } from "effect"
import { AppConfig, publicBaseUrl } from "../../Config.js"
import { OutboundPolicy } from "../../Http/OutboundFetch.js"
import { RunsWorkers } from "../../Jobs/Jobs.js"
import { LINK_CHECK_LIMITS } from "../../LinkChecks/PageFetcher.js"
import { LinkCheckSettings, linkCheckerAgent } from "../../LinkChecks/Settings.js"
import { LogsTo } from "../../Logging.js"
import { HttpServerLive } from "../../Server/Server.js"
import { CliError } from "../CliError.js"
import { CliRepo } from "../Repo.js"
import { type DemoSignIn, demoJson, demoLines, seedDemo, seedServicesLive } from "./Seed.js"

/**
 * Builds `layer`, runs `ready` with what it built, and keeps it until the fiber is interrupted (SIGINT/SIGTERM under
 * `NodeRuntime.runMain`). Closing the server waits for requests in flight, but at most `drain`: after that the
 * process goes on to exit.
 */
const launch = <ROut, E, RIn, E2, R2>(
  layer: Layer.Layer<ROut, E, RIn>,
  ready: (context: Context.Context<ROut>) => Effect.Effect<void, E2, R2>,
  drain: Duration.Duration
) =>
  Effect.acquireUseRelease(
    Scope.make(),
    (scope) => Layer.buildWithScope(layer, scope).pipe(Effect.flatMap(ready), Effect.zipRight(Effect.never)),
    (scope, exit) =>
      Scope.close(scope, exit).pipe(
        Effect.disconnect,
        Effect.timeoutOption(drain),
        Effect.flatMap(
          Option.match({
            onSome: () => Effect.void,
            onNone: () =>
              Effect.logWarning(`requests still running after ${Duration.format(drain)}; shutting down anyway`)
          })
        )
      )
  )

const causeMessage = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/**
 * What `serve` prints once the server listens. The `cbs` commands it suggests run beside it, on PostgreSQL as on the
 * embedded database (which they reach through the server); `node bin/cbs.js` is how the README runs them.
 */
export const bannerLines = (
  baseUrl: string,
  demo: Option.Option<DemoSignIn>,
  empty: boolean
): ReadonlyArray<string> => [
  `Content and backlink service listening on ${baseUrl}`,
  `OpenAPI document: ${baseUrl}/api/v1/openapi.json`,
  ...Option.match(demo, {
    onSome: (seeded) => [
      ...demoLines(seeded),
      `Try it: curl -H "Authorization: Bearer ${seeded.key}" ${baseUrl}/api/v1/sites`
    ],
    onNone: () =>
      empty
        ? [
            "No accounts yet: import data with `node bin/cbs.js import FILE` or `node bin/cbs.js seed --demo`,",
            "or create an account with `node bin/cbs.js account create --email E --name N`."
          ]
        : [
            `API keys: sign in on ${baseUrl}/connection and create one there,`,
            "or run `node bin/cbs.js key create --account <e-mail>`."
          ]
  }),
  "Stop with Ctrl+C."
]

/** The banner as one JSON object (`serve --json`), for whoever starts the server from a script. */
const bannerJson = (baseUrl: string, demo: Option.Option<DemoSignIn>) => ({
  listening: baseUrl,
  openapi: `${baseUrl}/api/v1/openapi.json`,
  demo: Option.match(demo, { onNone: () => null, onSome: demoJson })
})

export const serve = (args: { readonly port: Option.Option<number>; readonly json: boolean }) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const listen = { port: Option.getOrElse(args.port, () => config.port), host: config.host }
    const repo = yield* CliRepo
    const empty = !(yield* repo.hasAccounts)
    const seeding = empty && config.seedDemo
    if (seeding) yield* Console.error("Importing the demo data…")
    const demo = seeding
      ? Option.some(yield* seedDemo.pipe(Effect.provide(seedServicesLive(Option.some(listen.port)))))
      : Option.none<DemoSignIn>()
    yield* Console.error("Starting the HTTP server…")
    if (config.outboundAllowLoopback) {
      yield* Console.error(
        "Warning: OUTBOUND_ALLOW_LOOPBACK=true lets webhooks and other outbound fetches reach this machine's loopback addresses over http. Never set it in production."
      )
    }
    // The background work runs here unless WORKERS=off (link checks unless LINK_CHECKS=off); outbound fetches follow
    // the development setting.
    const instance = Layer.mergeAll(
      Layer.succeed(RunsWorkers, config.workers === "on"),
      Layer.succeed(LinkCheckSettings, {
        enabled: config.linkChecks === "on",
        userAgent: linkCheckerAgent(publicBaseUrl(config, listen.port)),
        limits: LINK_CHECK_LIMITS
      }),
      Layer.succeed(OutboundPolicy, {
        trustedHosts: new Set<string>(),
        ca: undefined,
        allowLoopback: config.outboundAllowLoopback
      })
    )
    const server = HttpServerLive(listen).pipe(
      Layer.provide(instance),
      Layer.mapError((error) =>
        error._tag === "ServeError"
          ? new CliError({ message: `cannot listen on ${listen.host}:${listen.port}: ${causeMessage(error.cause)}` })
          : error
      )
    )
    // Log lines go to stdout from here on (one JSON object a line, with the request id, unless LOG_FORMAT=pretty),
    // after the banner, which is for the person or the script that started the server.
    yield* launch(
      server.pipe(Layer.provide(LogsTo("stdout"))),
      (context) => {
        const address = Context.get(context, HttpServer.HttpServer).address
        const actualPort = address._tag === "TcpAddress" ? address.port : listen.port
        const baseUrl = publicBaseUrl(config, actualPort)
        return args.json
          ? Console.log(JSON.stringify(bannerJson(baseUrl, demo)))
          : Effect.forEach(bannerLines(baseUrl, demo, empty && Option.isNone(demo)), (line) => Console.log(line), {
              discard: true
            })
      },
      Duration.seconds(config.shutdownTimeoutSeconds)
    )
  }).pipe(Effect.provide(CliRepo.Default))
