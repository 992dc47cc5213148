import type { Schema } from "effect"
import { Article, ArticleWithBody, ProtectedLink } from "../Domain/Article.js"
import { PatchArticlePayload, Replacement, UpdateArticlePayload } from "../Domain/ArticleEdits.js"
import { Backlink } from "../Domain/Backlink.js"
import { ErrorBody } from "../Domain/Errors.js"
import { PageMeta } from "../Domain/Pagination.js"
import { Site } from "../Domain/Site.js"
import { Stats } from "../Domain/Stats.js"

/*
 * Examples of the document's main schemas, written as the schemas' encoded types so that the compiler holds them to
 * the schemas' fields (test/OpenApi.test.ts also decodes each through its schema, and the linters validate them
 * against the document).
 */

const site: typeof Site.Encoded = {
  id: 1,
  name: "Hart & Sons Plumbing",
  website_url: "https://hartplumbing.example",
  language: "en-GB",
  country: "GB",
  geographic_scope: "local",
  industry: "Plumbing"
}

const protectedLink: typeof ProtectedLink.Encoded = {
  type: "backlink",
  href: "https://boilers.example/guide",
  text: "boiler guide"
}

const article: typeof Article.Encoded = {
  id: 42,
  site_id: 1,
  title: "Fixing a dripping tap",
  url: "https://hartplumbing.example/blog/dripping-tap",
  status: "published",
  published_at: "2026-10-01T08:00:00Z",
  target_keyword: "dripping tap",
  word_count: 12,
  featured_image_url: null,
  revision: 3
}

const articleWithBody: typeof ArticleWithBody.Encoded = {
  ...article,
  body: '<p>Turn the water off first, then see our <a data-service-protected="backlink" href="https://boilers.example/guide">boiler guide</a>.</p>',
  meta_description: "How to stop a dripping tap.",
  protected_links: [protectedLink]
}

const backlink: typeof Backlink.Encoded = {
  id: 7,
  acquired_at: "2026-10-02T00:00:00Z",
  source_domain: "news.example.org",
  source_url: "https://news.example.org/local-trades",
  target_url: "https://hartplumbing.example/",
  anchor_text: "Hart & Sons",
  anchor_type: "branded",
  status: "live",
  category: "local",
  last_checked_at: "2026-10-30T06:12:09Z",
  lost_reason: null,
  rel: [],
  indexable: true
}

const stats: typeof Stats.Encoded = {
  site_id: 1,
  from: "2026-10-01",
  to: "2026-10-31",
  articles_published: 8,
  backlinks_acquired: 14,
  backlinks_industry: 9,
  backlinks_local: 5,
  backlinks_live: 41,
  backlinks_lost: 3
}

const pageMeta: typeof PageMeta.Encoded = { page: 1, per_page: 20, total: 32, last_page: 2 }

const replacement: typeof Replacement.Encoded = { find: "dripping tap", replace: "leaking tap", all: true }

const updateArticle: typeof UpdateArticlePayload.Encoded = {
  title: "Fixing a dripping tap in five steps",
  body: articleWithBody.body,
  reason: "Rewritten for clarity"
}

const patchArticle: typeof PatchArticlePayload.Encoded = {
  meta_description: "Five steps to stop a dripping tap.",
  replacements: [replacement],
  reason: "Wording"
}

const error: typeof ErrorBody.Encoded = {
  error: "protected_link_violation",
  message:
    'Protected links must be kept unchanged: removed <a data-service-protected="backlink" href="https://boilers.example/guide">boiler guide</a>.',
  protected_links: [protectedLink]
}

export interface SchemaExample {
  readonly schema: Schema.Schema.AnyNoContext
  readonly value: unknown
}

const example = <A, I>(schema: Schema.Schema<A, I>, value: NoInfer<I>): SchemaExample => ({ schema, value })

/** One example for each of these component schemas, by component name, with the schema it is an encoding of. */
export const schemaExamples: Readonly<Record<string, SchemaExample>> = {
  Site: example(Site, site),
  Article: example(Article, article),
  ArticleWithBody: example(ArticleWithBody, articleWithBody),
  ProtectedLink: example(ProtectedLink, protectedLink),
  Backlink: example(Backlink, backlink),
  Stats: example(Stats, stats),
  PageMeta: example(PageMeta, pageMeta),
  Replacement: example(Replacement, replacement),
  UpdateArticlePayload: example(UpdateArticlePayload, updateArticle),
  PatchArticlePayload: example(PatchArticlePayload, patchArticle),
  Error: example(ErrorBody, error)
}
