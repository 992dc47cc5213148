import { HttpApi, OpenApi } from "@effect/platform"
import { documentAnnotation, templateServer } from "./Api/OpenApiDocument.js"
import { ArticlesApi } from "./Articles/Api.js"
import { BacklinksApi } from "./Backlinks/Api.js"
import { InternalError, PayloadTooLarge, RequestTimeout, Unavailable } from "./Domain/Errors.js"
import { EventsApi } from "./Events/Api.js"
import { MetaApi } from "./Meta/Api.js"
import { RevisionsApi } from "./Revisions/Api.js"
import { SitesApi } from "./Sites/Api.js"
import { StatsApi } from "./Stats/Api.js"

export class Api extends HttpApi.make("content-backlink-service")
  .add(SitesApi)
  .add(ArticlesApi)
  .add(RevisionsApi)
  .add(BacklinksApi)
  .add(StatsApi)
  .add(EventsApi)
  .add(MetaApi)
  // Answered for any route: a body over the cap before it is read, a body that stops arriving, a failure, a request
  // while starting or stopping (or past its deadline).
  .addError(PayloadTooLarge.Body)
  .addError(RequestTimeout.Body)
  .addError(InternalError.Body)
  .addError(Unavailable.Body)
  .prefix("/api/v1")
  .annotateContext(
    OpenApi.annotations({
      title: "Content and Backlink Service",
      version: "1.0.0",
      description:
        "Websites, articles and acquired backlinks of an account. Every request except this document needs an API key, sent as `Authorization: Bearer <key>` (read first) or `X-API-Key: <key>`. Errors have the body `{ error, message, protected_links?, limit? }`. Lists take `page` (from 1) and `per_page` (1 to 100, default 20) and return `data` and `meta`.",
      servers: [templateServer],
      transform: documentAnnotation
    })
  ) {}
