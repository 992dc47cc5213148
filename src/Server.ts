import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Layer } from "effect"
import { Api } from "./Api.js"
import { ArticleEdits } from "./ArticleEdits.js"
import { ArticlesHttpLive } from "./Articles/Http.js"
import { Articles } from "./Articles.js"
import { AuditLog } from "./Audit.js"
import { Accounts } from "./Auth/Accounts.js"
import { ApiKeys } from "./Auth/ApiKeys.js"
import { AuthenticationLive } from "./Auth/Http.js"
import { BacklinksHttpLive } from "./Backlinks/Http.js"
import { Backlinks } from "./Backlinks.js"
import { FeaturedImages } from "./FeaturedImages.js"
import { ClientErrorsLive } from "./Http/Errors.js"
import { HealthRoutesLive } from "./Http/Health.js"
import { PublicUrlLive } from "./Http/PublicUrl.js"
import { serverMiddleware } from "./Http/Server.js"
import { createServer } from "./Http/StartupGate.js"
import { Limits } from "./Limits.js"
import { McpRoutesLive } from "./Mcp/Http.js"
import { MediaRoutesLive } from "./Media/Http.js"
import { MediaStore } from "./Media/MediaStore.js"
import { MetaHttpLive } from "./Meta/Http.js"
import { AccessTokens } from "./OAuth/AccessTokens.js"
import { OAuthRoutesLive } from "./OAuth/Http.js"
import { SitesHttpLive } from "./Sites/Http.js"
import { Sites } from "./Sites.js"
import { StatsHttpLive } from "./Stats/Http.js"
import { Stats } from "./Stats.js"
import { WebPagesLive } from "./Web/Pages.js"

/** The feature services; they need only the database. */
export const ServicesLive = Layer.mergeAll(
  Sites.Default,
  Articles.Default,
  Backlinks.Default,
  Stats.Default,
  ArticleEdits.Default,
  Limits.Default,
  AuditLog.Default,
  Accounts.Default,
  ApiKeys.Default,
  AccessTokens.Default
)

const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([SitesHttpLive, ArticlesHttpLive, BacklinksHttpLive, StatsHttpLive, MetaHttpLive]),
  Layer.provide(AuthenticationLive)
)

/** Uploaded media: stored by the edit endpoints and tools, served at /media under the server's public URL. */
const MediaLive = FeaturedImages.Default.pipe(Layer.provideMerge(MediaStore.Default))

/** The HTTP server on `host:port` (port 0: any free port), with the API and its error handling. */
export const HttpServerLive = (listen: { readonly port: number; readonly host: string }) =>
  HttpApiBuilder.serve(serverMiddleware).pipe(
    Layer.provide([ClientErrorsLive, MediaRoutesLive, HealthRoutesLive, OAuthRoutesLive, McpRoutesLive, WebPagesLive]),
    Layer.provide(ApiLive),
    Layer.provideMerge(MediaLive),
    Layer.provideMerge(ServicesLive),
    Layer.provideMerge(PublicUrlLive),
    Layer.provideMerge(NodeHttpServer.layer(createServer, listen))
  )
