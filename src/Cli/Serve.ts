import { Command, Options } from "@effect/cli"
import { HttpServer } from "@effect/platform"
import { Console, Context, Duration, Effect, Layer, Logger, Option, Scope } from "effect"
import { AppConfig, publicBaseUrl } from "../Config.js"
import { HttpServerLive } from "../Server.js"
import { CliError } from "./CliError.js"
import { CliRepo } from "./Repo.js"
import { type DemoSignIn, demoLines, SeedServicesLive, seedDemo } from "./Seed.js"

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

/** What `serve` prints once the server listens. */
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
            "No accounts yet: import data with `npx cbs import FILE` or `npx cbs seed --demo`,",
            "or create an account with `npx cbs account create --email E --name N`."
          ]
        : ["Create an API key with: npx cbs key create --account <e-mail>"]
  }),
  "Stop with Ctrl+C."
]

export const serveCommand = Command.make(
  "serve",
  {
    port: Options.integer("port").pipe(
      Options.withDescription("Port to listen on (default: PORT, else 3000; 0 picks a free port)."),
      Options.optional
    )
  },
  ({ port }) =>
    Effect.gen(function* () {
      const config = yield* AppConfig
      const listen = { port: Option.getOrElse(port, () => config.port), host: config.host }
      if (!Number.isInteger(listen.port) || listen.port < 0 || listen.port > 65535) {
        return yield* new CliError({ message: `--port ${listen.port} is not a port number (0 to 65535)` })
      }
      const repo = yield* CliRepo
      const empty = !(yield* repo.hasAccounts)
      const demo =
        empty && config.seedDemo
          ? Option.some(yield* seedDemo.pipe(Effect.provide(SeedServicesLive)))
          : Option.none<DemoSignIn>()
      const server = HttpServerLive(listen).pipe(
        Layer.mapError((error) =>
          error._tag === "ServeError"
            ? new CliError({ message: `cannot listen on ${listen.host}:${listen.port}: ${causeMessage(error.cause)}` })
            : error
        )
      )
      // Log lines are JSON from here on (one object a line, with the request id), for log collectors; the banner
      // above them stays plain text for the person who started the server.
      yield* launch(
        server.pipe(Layer.provide(Logger.json)),
        (context) => {
          const address = Context.get(context, HttpServer.HttpServer).address
          const actualPort = address._tag === "TcpAddress" ? address.port : listen.port
          const lines = bannerLines(publicBaseUrl(config, actualPort), demo, empty && Option.isNone(demo))
          return Effect.forEach(lines, (line) => Console.log(line), { discard: true })
        },
        Duration.seconds(config.shutdownTimeoutSeconds)
      )
    }).pipe(Effect.provide(CliRepo.Default))
).pipe(
  Command.withDescription("Run the HTTP server (API, MCP, web pages); imports the demo data into an empty database.")
)
