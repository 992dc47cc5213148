import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import { Schema } from "effect"
import { AgentTool, type AgentToolSpec, readTool } from "../Api/AgentTool.js"
import { endpointDescribed, groupDescribed } from "../Api/Described.js"
import { sendsHeader } from "../Api/DocumentOperation.js"
import { authenticated } from "../Api/Middleware.js"
import { ArticlePath } from "../Api/Paths.js"
import { recordRead } from "../Api/RecordRead.js"
import { siteRead } from "../Api/SiteRead.js"
import { Article, ArticleWithBody, ListedArticle } from "../Domain/Article.js"
import {
  BODY_BOUNDS_DESCRIPTION,
  DryRunQuery,
  FeaturedImageJson,
  FeaturedImageMultipart,
  inWords,
  MAX_CONCURRENT_WRITES,
  PatchArticlePayload,
  Preview,
  patchChanges,
  strictBody,
  UpdateArticlePayload,
  WriteHeaders
} from "../Domain/ArticleEdits.js"
import {
  DisallowedHtml,
  EditLimitExceeded,
  Forbidden,
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
  ImageTooLarge,
  NotFound,
  PayloadTooLarge,
  PreconditionFailed,
  ProtectedLinkViolation,
  ReplacementConflict,
  UnsupportedImage,
  ValidationError
} from "../Domain/Errors.js"
import { ListResponse } from "../Domain/Pagination.js"
import { ArticlesQuery } from "../Domain/Queries.js"

/**
 * What every article write can be refused with, besides what it checks of its own; 403 `forbidden` is a credential
 * that may only read (a read-only API key, an assistant allowed to read only).
 */
const WriteErrors = Schema.Union(
  Forbidden.Body,
  NotFound.Body,
  ValidationError.Body,
  PayloadTooLarge.Body,
  EditLimitExceeded.Body,
  PreconditionFailed.Body,
  IdempotencyKeyInUse.Body,
  IdempotencyKeyReused.Body
)

/** A write's answer: the article, and with `dry_run=true` the preview of a change that was not saved. */
export const EditResponse = Schema.Struct({
  data: ArticleWithBody,
  preview: Schema.optional(Preview)
})

/** The featured-image endpoint's answer: the article without its body, and with `dry_run=true` the preview. */
export const FeaturedImageResponse = Schema.Struct({
  data: Article,
  preview: Schema.optional(Preview)
})

export const articleArg = { id: "article_id" }

/** An assistant's tool that changes an article; a host with MCP Apps shows its result in the article-change card. */
export const articleChangeTool = (name: string, title: string, description: string): AgentToolSpec => ({
  name,
  title,
  description,
  readOnly: false,
  idempotent: false,
  pathArgs: articleArg,
  card: "article-change"
})

/**
 * An article write: on the article's path, with `dry_run`, the write headers (If-Match, Idempotency-Key) and what
 * every write can be refused with.
 */
export const articleWrite = <Name extends string, Method extends HttpMethod>(
  endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method>
) => endpoint.setPath(ArticlePath).setUrlParams(DryRunQuery).setHeaders(WriteHeaders).addError(WriteErrors)

/**
 * A write of the article's body (PUT, PATCH): it answers with the article and its body, and is refused when the body
 * holds what the sanitiser does not allow or drops or adds a protected link.
 */
const bodyWrite = <Name extends string, Method extends HttpMethod>(
  endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method>
) => articleWrite(endpoint).addSuccess(EditResponse).addError(DisallowedHtml.Body).addError(ProtectedLinkViolation.Body)

export class ArticlesApi extends authenticated(
  HttpApiGroup.make("articles")
    .add(
      siteRead(HttpApiEndpoint.get("listArticles", "/sites/:id/articles"))
        .setUrlParams(ArticlesQuery)
        .addSuccess(
          ListResponse(
            ListedArticle,
            "Articles, newest published_at first (nulls last), then id descending; with q, the most relevant first."
          )
        )
        .annotate(
          AgentTool,
          readTool({
            name: "list_articles",
            title: "List a website's articles",
            description:
              'Lists a website\'s articles, newest published first, with title, address, status, search term and word count (get_article reads the body). To find articles about something, pass q: every word must occur in the title, target keyword or text (any case or accents, any word form), "a quoted phrase" only as that phrase; the most relevant come first, each with match, an excerpt around the hit.',
            pathArgs: { id: "site_id" }
          })
        )
        .annotateContext(
          endpointDescribed(
            "List a website's articles",
            "Lists a website's articles, newest `published_at` first (articles without one last), then by id descending. `q` searches: only articles whose title, target keyword or body text (never its markup or attribute values) contain every word, a phrase in double quotes only as that phrase, ignoring case and accents, with word forms of the website's `language` where PostgreSQL has a dictionary for it; ordered by relevance, then as without it, each item with `match`, a plain-text excerpt around the first hit (at most 200 characters). `from`/`to` filter on `published_at` (UTC days, inclusive; either alone bounds only its side) and leave out articles that have none. A malformed date, `from` after `to`, an unknown status, an empty or over-long `q` or one with control characters, or paging out of bounds: 422 validation_error."
          )
        )
    )
    .add(
      recordRead(HttpApiEndpoint.get("getArticle", "/articles/:id"), ArticlePath, ArticleWithBody)
        .annotate(
          AgentTool,
          readTool({
            name: "get_article",
            title: "Read an article",
            description:
              "Reads one article with its HTML body and the protected links in it. Copy the text for update_article's replacements from this body: a find must match it exactly.",
            pathArgs: articleArg
          })
        )
        .annotateContext(
          endpointDescribed(
            "Read an article with its body",
            "Returns the article with its canonical HTML body and the protected links found in it. The ETag header is the article's revision, quoted: send it back as If-Match to change only that version."
          )
        )
        .annotate(OpenApi.Transform, sendsHeader(200, "ETag"))
    )
    .add(
      bodyWrite(HttpApiEndpoint.put("updateArticle", "/articles/:id"))
        .setPayload(strictBody(UpdateArticlePayload))
        .annotate(AgentTool, { name: "update_article", when: "body", pathArgs: articleArg })
        .annotateContext(
          endpointDescribed(
            "Replace an article's title and body",
            `Replaces the HTML body (and the title, when given) of an article on the key's own account. The body is sanitised to its canonical form; dangerous content is refused (422 disallowed_html), and every protected link of the current body must be kept unchanged (it may move), none added (422 protected_link_violation with the links). A successful change stores a revision (origin API, or MCP for the agent tool); an edit that changes nothing stores none. Nothing is saved on any error. ${BODY_BOUNDS_DESCRIPTION} At most ${MAX_CONCURRENT_WRITES} writes of one account run at once; the others wait their turn.`
          )
        )
    )
    .add(
      bodyWrite(HttpApiEndpoint.patch("patchArticle", "/articles/:id"))
        .setPayload(strictBody(PatchArticlePayload))
        .addError(ReplacementConflict.Body)
        .annotate(
          AgentTool,
          articleChangeTool(
            "update_article",
            "Edit an article",
            "Edits an article: find-and-replace in the body as read (replacements), title, meta_description, or a new body; protected links must stay. Saved as a restorable revision. dry_run first, then if_match and idempotency_key."
          )
        )
        .annotateContext(
          endpointDescribed(
            "Edit an article in small steps",
            `Changes the title, the meta description and/or applies find-and-replace edits to the HTML body as GET returns it. Replacements run in order, each on the result of the one before; each find must occur exactly once (or, with all, at least once), otherwise 409 replacement_conflict and nothing is saved. The result passes the same sanitiser and protected-link check as PUT. At least one of ${inWords(patchChanges)} is needed (422). The body the replacements make has the bounds of a body. ${BODY_BOUNDS_DESCRIPTION}`
          )
        )
    )
    .add(
      articleWrite(HttpApiEndpoint.post("replaceFeaturedImage", "/articles/:id/featured-image"))
        .setPayload(
          Schema.Union(HttpApiSchema.Multipart(strictBody(FeaturedImageMultipart)), strictBody(FeaturedImageJson))
        )
        .addSuccess(FeaturedImageResponse)
        .addError(UnsupportedImage.Body)
        .addError(ImageTooLarge.Body)
        .annotate(
          AgentTool,
          articleChangeTool(
            "replace_featured_image",
            "Replace an article's featured image",
            "Sets an article's featured image from url (absolute http(s)) or image (base64 file), hosted by the service."
          )
        )
        .annotateContext(
          endpointDescribed(
            "Replace an article's featured image",
            "Either multipart/form-data with an image file (and/or url) and reason, or JSON with url and reason. When both image and url are sent, the uploaded image wins. Uploads are JPEG, PNG, WebP, GIF or AVIF judged by their bytes (else 422 unsupported_image), at most 10 MiB (else 422 image_too_large, limit 10485760); they are stored by the service and featured_image_url becomes their address under /media/. A url must be absolute http(s), at most 2048 characters, and is stored as given. Stores a revision (origin API, or MCP for the agent tool). With dry_run=true every check runs (the image's type and size, If-Match, the day's quota as it stands) and the answer is the article as it would be saved (featured_image_url the address the image would have) with a preview; no image is stored, nothing is saved, no quota is used."
          )
        )
    )
).annotateContext(
  groupDescribed(
    "Articles",
    "A website's articles: list and read them, and change an article's title, body, meta description or featured image. Every change is kept as a revision; protected links must survive every edit."
  )
) {}
