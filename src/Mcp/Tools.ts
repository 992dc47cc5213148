import { Effect, JSONSchema, Schema } from "effect"
import { ArticleEdits, type EditContext } from "../ArticleEdits.js"
import { ArticlesFilterFields } from "../Articles/Api.js"
import { Articles } from "../Articles.js"
import type { Credential } from "../Auth/CurrentCredential.js"
import { Backlinks } from "../Backlinks.js"
import { Article, ArticleWithBody } from "../Domain/Article.js"
import {
  Body,
  ImageUrl,
  MetaDescription,
  PatchArticlePayload,
  Reason,
  Replacements,
  Title,
  UpdateArticlePayload
} from "../Domain/ArticleEdits.js"
import { Backlink } from "../Domain/Backlink.js"
import { DateRangeQuery } from "../Domain/Dates.js"
import { fromParseError } from "../Domain/DecodeIssues.js"
import { ValidationError } from "../Domain/Errors.js"
import { ArticleId, SiteId } from "../Domain/Ids.js"
import { DataResponse, ListResponse, PageArgs } from "../Domain/Pagination.js"
import { Site } from "../Domain/Site.js"
import { Stats as StatsData } from "../Domain/Stats.js"
import { FeaturedImages } from "../FeaturedImages.js"
import { SitesFilterFields } from "../Sites/Api.js"
import { Sites } from "../Sites.js"
import { StatsQuery } from "../Stats/Api.js"
import { Stats } from "../Stats.js"
import { endpointDocs } from "./Docs.js"

const siteId = SiteId.annotations({ description: "Website id (from list_sites)." })
const articleId = ArticleId.annotations({ description: "Article id (from list_articles)." })

export interface ToolAnnotations {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
// Every change is stored as a revision and can be restored, so edits are not destructive.
const EDIT: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false
}

/** The services a tool may call: the same ones the HTTP handlers call. */
export type ToolServices = Sites | Articles | Backlinks | Stats | ArticleEdits | FeaturedImages

export interface Tool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly annotations: ToolAnnotations
  readonly inputSchema: Record<string, unknown>
  readonly outputSchema: Record<string, unknown>
  /** The article the call concerns, for the call log. */
  readonly articleOf: (args: unknown) => number | null
  /** Validates the arguments with the endpoint's schemas and runs the endpoint's service call. */
  readonly run: (credential: Credential, args: unknown) => Effect.Effect<unknown, unknown, ToolServices>
}

const jsonSchemaOf = (schema: Schema.Schema.AnyNoContext): Record<string, unknown> => {
  const { $schema: _, ...rest } = JSONSchema.make(schema)
  return { ...rest }
}

const tool = <A, I>(options: {
  readonly name: string
  readonly endpoint: string
  readonly title: string
  readonly annotations: ToolAnnotations
  readonly input: Schema.Schema<A, I>
  readonly output: Schema.Schema.AnyNoContext
  readonly run: (credential: Credential, args: A) => Effect.Effect<unknown, unknown, ToolServices>
  readonly note?: string
}): Tool => {
  const doc = endpointDocs().get(options.endpoint)
  const decode = Schema.decodeUnknown(options.input, { onExcessProperty: "error" })
  return {
    name: options.name,
    title: options.title,
    description: [doc?.summary, doc?.description, options.note]
      .filter((part) => part !== undefined && part !== "")
      .join("\n\n"),
    annotations: options.annotations,
    inputSchema: jsonSchemaOf(options.input as Schema.Schema.AnyNoContext),
    outputSchema: jsonSchemaOf(options.output),
    articleOf: (args) =>
      typeof args === "object" && args !== null && "article_id" in args && typeof args.article_id === "number"
        ? args.article_id
        : null,
    run: (credential, args) =>
      decode(args ?? {}).pipe(
        Effect.mapError(fromParseError),
        Effect.flatMap((decoded) => options.run(credential, decoded))
      )
  }
}

const mcpContext = (credential: Credential, reason: string | undefined): EditContext => ({
  credential,
  origin: "MCP",
  reason
})

const UpdateArticleArgs = Schema.Struct({
  article_id: articleId,
  title: Schema.optional(Title),
  body: Schema.optional(Body),
  meta_description: Schema.optional(MetaDescription),
  replacements: Schema.optional(Replacements),
  reason: Schema.optional(Reason)
})

const ReplaceFeaturedImageArgs = Schema.Struct({
  article_id: articleId,
  url: Schema.optional(ImageUrl),
  image_base64: Schema.optional(
    Schema.String.annotations({
      description:
        "The image file, base64-encoded: JPEG, PNG, WebP, GIF or AVIF (judged by its bytes), at most 10 MiB decoded. Wins over url when both are sent."
    })
  ),
  reason: Schema.optional(Reason)
})

const decodeBase64 = (text: string) =>
  /^[A-Za-z0-9+/]*={0,2}$/.test(text.replace(/\s+/g, "")) && text.replace(/\s+/g, "").length % 4 === 0
    ? Effect.succeed(new Uint8Array(Buffer.from(text, "base64")))
    : Effect.fail(new ValidationError({ message: "image_base64: must be base64" }))

/** The seven agent tools, each running the code path of its endpoint. */
export const makeTools = (): ReadonlyArray<Tool> => [
  tool({
    name: "list_sites",
    endpoint: "sites.listSites",
    title: "List websites",
    annotations: READ,
    input: Schema.Struct({ ...SitesFilterFields, ...PageArgs }),
    output: ListResponse(Site, "The websites, in id order."),
    run: (credential, args) => Effect.flatMap(Sites, (sites) => sites.list(credential, args))
  }),
  tool({
    name: "list_articles",
    endpoint: "articles.listArticles",
    title: "List a website's articles",
    annotations: READ,
    input: Schema.Struct({ site_id: siteId, ...ArticlesFilterFields, ...PageArgs }),
    output: ListResponse(Article, "Articles, newest published_at first (nulls last), then id descending."),
    run: (credential, { site_id, ...query }) =>
      Effect.flatMap(Articles, (articles) => articles.list(credential, site_id, query))
  }),
  tool({
    name: "get_article",
    endpoint: "articles.getArticle",
    title: "Read an article",
    annotations: READ,
    input: Schema.Struct({ article_id: articleId }),
    output: DataResponse(ArticleWithBody),
    run: (credential, args) =>
      Effect.flatMap(Articles, (articles) =>
        Effect.map(articles.get(credential, args.article_id), (data) => ({ data }))
      )
  }),
  tool({
    name: "list_backlinks",
    endpoint: "backlinks.listBacklinks",
    title: "List a website's backlinks",
    annotations: READ,
    input: Schema.Struct({ site_id: siteId, ...DateRangeQuery, ...PageArgs }),
    output: ListResponse(Backlink, "Backlinks, newest acquired_at first, then id descending."),
    run: (credential, { site_id, ...query }) =>
      Effect.flatMap(Backlinks, (backlinks) => backlinks.list(credential, site_id, query))
  }),
  tool({
    name: "get_stats",
    endpoint: "stats.getStats",
    title: "Read a website's counts for a period",
    annotations: READ,
    input: Schema.Struct({ site_id: siteId, ...StatsQuery.fields }),
    output: DataResponse(StatsData),
    run: (credential, { site_id, ...query }) =>
      Effect.flatMap(Stats, (stats) => Effect.map(stats.get(credential, site_id, query), (data) => ({ data })))
  }),
  tool({
    name: "update_article",
    endpoint: "articles.patchArticle",
    title: "Edit an article",
    annotations: EDIT,
    input: UpdateArticleArgs,
    output: DataResponse(ArticleWithBody),
    note: "Send either body (with an optional title) to replace the whole HTML body, as PUT does, or any of title, meta_description and replacements for small edits, as PATCH does; body cannot be combined with meta_description or replacements. Every change is stored as a revision with origin MCP and can be restored from the article page.",
    run: (credential, { article_id, reason, ...fields }) =>
      Effect.gen(function* () {
        const edits = yield* ArticleEdits
        const context = mcpContext(credential, reason)
        if (fields.body !== undefined) {
          if (fields.replacements !== undefined || fields.meta_description !== undefined) {
            return yield* new ValidationError({
              message: "body replaces the whole article: send it without meta_description and replacements."
            })
          }
          const payload = new UpdateArticlePayload({ body: fields.body, title: fields.title, reason })
          return { data: yield* edits.replace(context, article_id, payload) }
        }
        const payload = new PatchArticlePayload({
          title: fields.title,
          meta_description: fields.meta_description,
          replacements: fields.replacements,
          reason
        })
        return { data: yield* edits.patch(context, article_id, payload) }
      })
  }),
  tool({
    name: "replace_featured_image",
    endpoint: "articles.replaceFeaturedImage",
    title: "Replace an article's featured image",
    annotations: EDIT,
    input: ReplaceFeaturedImageArgs,
    output: DataResponse(Article),
    note: "Send url, or image_base64 (the file's bytes in base64) with the same type and size rules as the upload.",
    run: (credential, args) =>
      Effect.gen(function* () {
        const featuredImages = yield* FeaturedImages
        const upload =
          args.image_base64 === undefined
            ? undefined
            : { _tag: "Bytes" as const, bytes: yield* decodeBase64(args.image_base64) }
        const data = yield* featuredImages.replace(mcpContext(credential, args.reason), args.article_id, {
          upload,
          url: args.url
        })
        return { data }
      })
  })
]
