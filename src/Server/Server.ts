import { HttpApiBuilder, HttpMiddleware, HttpRouter, HttpServer } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer, Option } from "effect"
import { Door } from "../Api/Middleware.js"
import { Api } from "../Api.js"
import { Articles } from "../Articles/Articles.js"
import { ArticleEdits } from "../Articles/Edits.js"
import { FeaturedImages } from "../Articles/FeaturedImages.js"
import { ArticlesHttpLive } from "../Articles/Http.js"
import { ArticlesRepo } from "../Articles/Repo.js"
import { ArticleRevisions } from "../Articles/Revisions.js"
import { Sanitizer } from "../Articles/Sanitizer.js"
import { SearchBackfillLive } from "../Articles/SearchBackfill.js"
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
import { EventsHttpLive } from "../Events/Http.js"
import { RequestBaseLive } from "../Http/PublicUrl.js"
import { RequestBodyLive } from "../Http/RequestBodies.js"
import { carriesToken } from "../Http/RequestPath.js"
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
import { ResetRoutesLive } from "../SignIn/ResetHttp.js"
import { SitesHttpLive } from "../Sites/Http.js"
import { Sites } from "../Sites/Sites.js"
import { StatsHttpLive } from "../Stats/Http.js"
import { Stats } from "../Stats/Stats.js"
import { WebPagesLive } from "../Web/Pages.js"
import { DeliveryLog } from "../Webhooks/DeliveryLog.js"
import { WebhookEndpoints } from "../Webhooks/Endpoints.js"
import { BackgroundWorkLive } from "./BackgroundWork.js"
import { ClientErrorsLive } from "./ClientErrors.js"
import { RequestDeadlines } from "./Deadlines.js"
import { HealthRoutesLive } from "./Health.js"
import { fromNetwork, serverMiddleware } from "./Pipeline.js"
import { createServer } from "./StartupGate.js"
import { TracingLive } from "./Tracing.js"
import { ROUTER_CONFIG } from "./Unrouted.js"

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
  ArticleRevisions.Default,
  Limits.Default,
  AuthFailures.Default,
  AuditLog.Default,
  Accounts.Default,
  ApiKeys.Default,
  AccessTokens.Default,
  Idempotency.Default,
  PasswordChecks.Default,
  WebhookEndpoints.Default,
  DeliveryLog.Default
)

const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([
    SitesHttpLive,
    ArticlesHttpLive,
    RevisionsHttpLive,
    BacklinksHttpLive,
    StatsHttpLive,
    EventsHttpLive,
    MetaHttpLive
  ]),
  Layer.provide([AuthenticationLive, CallLogLive(Api), RequestLimitLive, RequestBodyLive(Api)])
)

/** Uploaded media: stored by the edit endpoints and tools, served at /media under the server's public URL. */
const MediaLive = FeaturedImages.Default.pipe(Layer.provideMerge(MediaStore.Default))

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
  // A request is a span only when traces are exported (see Tracing.ts), and never one whose URL holds a reset token.
  return HttpServer.serve(fromNetwork(app), serverMiddleware({ https })).pipe(
    Layer.provide(Layer.succeedContext(Context.make(ApplicationApp, app).pipe(Context.add(Door, door)))),
    HttpMiddleware.withTracerDisabledWhen((request) => !tracing || carriesToken(request.url))
  )
}).pipe(
  // Paths are matched exactly (see ROUTER_CONFIG); a `;` in a path is refused before routing (see Pipeline.ts).
  HttpRouter.withRouterConfig(ROUTER_CONFIG),
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
      ResetRoutesLive,
      McpRoutesLive(deriveTools(Api)),
      WebPagesLive,
      CallLogUpkeepLive,
      BackgroundWorkLive,
      SearchBackfillLive.pipe(Layer.provide([ArticlesRepo.Default, Sanitizer.Default]))
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
