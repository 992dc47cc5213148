import { HttpApi, OpenApi } from "@effect/platform"
import { ArticlesApi } from "./Articles/Api.js"
import { BacklinksApi } from "./Backlinks/Api.js"
import { InternalErrorBody } from "./Domain/Errors.js"
import { MetaApi } from "./Meta/Api.js"
import { SitesApi } from "./Sites/Api.js"
import { StatsApi } from "./Stats/Api.js"

type Json = Record<string, unknown>

/**
 * Decode failures are answered 422 `validation_error` (see Http/Errors.ts), so the framework's always-listed
 * 400, and the schemas only it used, are removed from the document.
 */
const withoutStatus400 = (spec: Json): Json => {
  const paths: Record<string, Json> = {}
  for (const [path, item] of Object.entries(spec["paths"] as Record<string, Record<string, Json>>)) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) => {
        const { 400: _, ...responses } = (operation["responses"] ?? {}) as Json
        return [method, { ...operation, responses }]
      })
    )
  }
  const components = spec["components"] as { schemas: Record<string, unknown> }
  const { HttpApiDecodeError: _d, Issue: _i, PropertyKey: _p, ...schemas } = components.schemas
  return { ...spec, paths, components: { ...components, schemas } }
}

export class Api extends HttpApi.make("content-backlink-service")
  .add(SitesApi)
  .add(ArticlesApi)
  .add(BacklinksApi)
  .add(StatsApi)
  .add(MetaApi)
  .addError(InternalErrorBody)
  .prefix("/api/v1")
  .annotateContext(
    OpenApi.annotations({
      title: "Content and Backlink Service",
      version: "1.0.0",
      description:
        "Websites, articles and acquired backlinks of an account. Every request except this document needs an API key, sent as `Authorization: Bearer <key>` (read first) or `X-API-Key: <key>`. Errors have the body `{ error, message, protected_links?, limit? }`. Lists take `page` (from 1) and `per_page` (1 to 100, default 20) and return `data` and `meta`.",
      transform: withoutStatus400
    })
  ) {}
