import { HttpApiBuilder, HttpMiddleware, HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Option } from "effect"
import { Door } from "../Api/Middleware.js"
import { Api } from "../Api.js"
import { Articles } from "../Articles/Articles.js"
import { ArticleEdits } from "../Articles/Edits.js"
import { FeaturedImages } from "../Articles/FeaturedImages.js"
import { ArticlesHttpLive } from "../Articles/Http.js"
import { AuditLog } from "../Audit/AuditLog.js"
import { CallLogLive } from "../Audit/CallLog.js"
import { CallLogUpkeepLive } from "../Audit/Upkeep.js"
import { Accounts } from "../Auth/Accounts.js"
import { ApiKeys } from "../Auth/ApiKeys.js"
import { AuthenticationLive, NetworkDoor } from "../Auth/Authentication.js"
import { PasswordChecks } from "../Auth/PasswordChecks.js"
import { Backlinks } from "../Backlinks/Backlinks.js"
import { BacklinksHttpLive } from "../Backlinks/Http.js"
import { AppConfig, TracingConfig, tracesEndpoint } from "../Config.js"
import { RequestBaseLive } from "../Http/PublicUrl.js"
import { RequestBodyLive } from "../Http/RequestBodies.js"
import { Idempotency } from "../Idempotency/Idempotency.js"
import { AuthFailures } from "../Limits/AuthFailures.js"
import { Limits } from "../Limits/Limits.js"
import { RequestLimitLive } from "../Limits/RequestLimit.js"
import { McpRoutesLive } from "../Mcp/Http.js"
import { ApplicationApp } from "../Mcp/InProcess.js"
import { deriveTools } from "../Mcp/Tools.js"
import { MediaRoutesLive } from "../Media/Http.js"
import { MediaStore } from "../Media/MediaStore.js"
import { MetaHttpLive } from "../Meta/Http.js"
import { AccessTokens } from "../OAuth/AccessTokens.js"
import { OAuthRoutesLive } from "../OAuth/Http.js"
import { RevisionsHttpLive } from "../Revisions/Http.js"
import { SignInRoutesLive } from "../SignIn/Http.js"
import { SitesHttpLive } from "../Sites/Http.js"
import { Sites } from "../Sites/Sites.js"
import { StatsHttpLive } from "../Stats/Http.js"
import { Stats } from "../Stats/Stats.js"
import { WebPagesLive } from "../Web/Pages.js"
import { ClientErrorsLive } from "./ClientErrors.js"
import { RequestDeadlines } from "./Deadlines.js"
import { HealthRoutesLive } from "./Health.js"
import { fromNetwork, serverMiddleware } from "./Pipeline.js"
import { createServer } from "./StartupGate.js"
import { TracingLive } from "./Tracing.js"

/**
 * The feature services, for the doors that are not API groups (pages, MCP, OAuth, the middleware). Each API group's
 * handler layer provides the services it calls itself, so an endpoint's feature is one folder and this server lists
 * its group only; a layer is built once however many layers provide it (layers are memoised), so each service is
 * one instance. They need only the database (and the settings).
 */
export const ServicesLive = Layer.mergeAll(
  Sites.Default,
  Articles.Default,
  Backlinks.Default,
  Stats.Default,
  ArticleEdits.Default,
  Limits.Default,
  AuthFailures.Default,
  AuditLog.Default,
  Accounts.Default,
  ApiKeys.Default,
  AccessTokens.Default,
  Idempotency.Default,
  PasswordChecks.Default
)

const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([SitesHttpLive, ArticlesHttpLive, RevisionsHttpLive, BacklinksHttpLive, StatsHttpLive, MetaHttpLive]),
  Layer.provide([AuthenticationLive, CallLogLive(Api), RequestLimitLive, RequestBodyLive(Api)])
)

/** Uploaded media: stored by the edit endpoints and tools, served at /media under the server's public URL. */
const MediaLive = FeaturedImages.Default.pipe(Layer.provideMerge(MediaStore.Default))

/**
 * Paths are matched exactly: `/API/V1/...` and `/api/v1//articles/1` name no route (a trailing slash is still
 * forgiven). A `;` in a path is refused before routing (see Pipeline.ts).
 */
const routerConfig = { caseSensitive: true, ignoreDuplicateSlashes: false }

/**
 * Serves the API and every plain route. The server's context also holds the door of requests from the network
 * (`Door`: API keys, origin API) and the application itself (`ApplicationApp`), so that the agent tools can answer
 * their calls through the same pipeline in process, each through a door of its own.
 */
const ServeLive = Effect.gen(function* () {
  const app = yield* HttpApiBuilder.httpApp
  const { publicBaseUrl } = yield* AppConfig
  const https = Option.exists(publicBaseUrl, (url) => url.protocol === "https:")
  const tracing = Option.isSome(tracesEndpoint(yield* TracingConfig))
  const door = yield* NetworkDoor
  // Both are put in the server's context once, not added to each request's (which copies the context).
  // A request is a span only when traces are exported (see Tracing.ts).
  return HttpServer.serve(fromNetwork(app), serverMiddleware({ https })).pipe(
    Layer.provide(Layer.succeedContext(Context.make(ApplicationApp, app).pipe(Context.add(Door, door)))),
    HttpMiddleware.withTracerDisabledWhen(() => !tracing)
  )
}).pipe(
  HttpRouter.withRouterConfig(routerConfig),
  Layer.unwrapEffect,
  Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer])
)

/** The HTTP server on `host:port` (port 0: any free port), with the API and its error handling. */
export const HttpServerLive = (listen: { readonly port: number; readonly host: string }) =>
  ServeLive.pipe(
    Layer.provide([
      ClientErrorsLive.pipe(Layer.provide(RequestDeadlines.Default)),
      MediaRoutesLive,
      HealthRoutesLive,
      OAuthRoutesLive,
      SignInRoutesLive,
      McpRoutesLive(deriveTools(Api)),
      WebPagesLive,
      CallLogUpkeepLive
    ]),
    Layer.provide(ApiLive),
    Layer.provideMerge(MediaLive),
    Layer.provideMerge(ServicesLive),
    Layer.provideMerge(RequestBaseLive),
    Layer.provideMerge(
      Layer.unwrapEffect(
        Effect.map(AppConfig, ({ bodyStallSeconds }) =>
          NodeHttpServer.layer(() => createServer({ bodyStallMs: bodyStallSeconds * 1000 }), listen)
        )
      )
    ),
    // Spans (of requests, statements and Effect.fn calls) only when they are exported.
    Layer.provide(TracingLive)
  )
