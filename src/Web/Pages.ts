import { Layer } from "effect"
import { RequestBaseLive } from "../Http/PublicUrl.js"
import { AssetRoutesLive } from "../Ui/Assets.js"
import { ActivityRoutesLive } from "./ActivityRoutes.js"
import { ArticleRoutesLive } from "./ArticleRoutes.js"
import { Assistants } from "./Assistants.js"
import { BacklinkRoutesLive } from "./BacklinkRoutes.js"
import { ConnectionRoutesLive } from "./ConnectionRoutes.js"
import { FeaturedImageRoutesLive } from "./FeaturedImageRoutes.js"
import { PageGuard } from "./Guard.js"
import { RevisionRoutesLive } from "./RevisionRoutes.js"
import { SitesRoutesLive } from "./SitesRoutes.js"
import { WebhookRoutesLive } from "./WebhookRoutes.js"

/**
 * The web pages for signed-in users (websites, backlinks, articles, activity, site connection) and their static
 * files, and the link checker's public page. Sign-in and sign-out are
 * with the OAuth routes; the feature services (Sites, Stats, Articles, ArticleRevisions, Backlinks, ApiKeys, WebhookEndpoints, DeliveryLog) come from the server's ServicesLive.
 */
export const WebPagesLive = Layer.mergeAll(
  AssetRoutesLive,
  SitesRoutesLive,
  BacklinkRoutesLive,
  ConnectionRoutesLive,
  ArticleRoutesLive,
  FeaturedImageRoutesLive,
  RevisionRoutesLive,
  ActivityRoutesLive,
  WebhookRoutesLive
).pipe(Layer.provide([PageGuard.Default, Assistants.Default]), Layer.provide(RequestBaseLive))
