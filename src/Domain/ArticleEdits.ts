import { Multipart } from "@effect/platform"
import { Schema, Struct } from "effect"
import { ArticleContent, type ContentField, contentFields } from "./Article.js"
import { atMostMessage, MAX_BODY_CHARACTERS, MAX_BODY_ELEMENTS, maxItems, maxLength } from "./Bounds.js"
import { OneLine, OneLineOnceTrimmed, Text } from "./Text.js"

export const MAX_TITLE = 255
export const MAX_META_DESCRIPTION = 500
export const MAX_REASON = 2000
export const MAX_REPLACEMENTS = 50
export const MAX_IMAGE_URL = 2048
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024
/** How many article writes of one account run at once (per server process); the others wait their turn. */
export const MAX_CONCURRENT_WRITES = 2

/**
 * A request body that refuses fields it does not define, at any depth (`titel`, or `replacement` for `replace`),
 * naming their path: a typo is never silently ignored.
 */
export const strictBody = <S extends Schema.Schema.Any>(schema: S) =>
  schema.annotations({ parseOptions: { onExcessProperty: "error" } }) as S

/** 1 to 255 characters once trimmed, one line; stored trimmed. */
export const Title = OneLineOnceTrimmed.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "must not be empty" }),
  Schema.filter((s) => s.trim().length <= MAX_TITLE, {
    message: () => atMostMessage(MAX_TITLE, "characters"),
    jsonSchema: { minLength: 1, maxLength: MAX_TITLE }
  })
).annotations({ description: "Title, one line; stored trimmed." })

export const Reason = OneLine.pipe(maxLength(MAX_REASON)).annotations({
  description: "Why the change was made, one line; kept with the revision."
})

export const MetaDescription = OneLine.pipe(maxLength(MAX_META_DESCRIPTION)).annotations({
  description: "Meta description, one line."
})

/** The bounds of an article body, in the words the document and the tools show. */
export const BODY_BOUNDS_DESCRIPTION = `An article body has at most ${MAX_BODY_CHARACTERS} characters (256 Ki, about five times a long article of about 50 KB of HTML) and at most ${MAX_BODY_ELEMENTS} HTML elements (a long article has about 1,000), both as sent and as stored once sanitised; over either bound: 422 validation_error with limit, decided before the body is parsed.`

export const Body = Text.pipe(
  Schema.maxLength(MAX_BODY_CHARACTERS, {
    message: () => atMostMessage(MAX_BODY_CHARACTERS, "characters; shorten it or split it into several articles")
  })
).annotations({
  description: `The new HTML body, sanitised as the editor does; script, iframe, object, embed, style, on* attributes and javascript:/data:/vbscript: URLs are refused (disallowed_html). Protected links must be kept. At most ${MAX_BODY_CHARACTERS} characters, ${MAX_BODY_ELEMENTS} elements.`
})

export const Replacement = Schema.Struct({
  find: Text.pipe(Schema.minLength(1, { message: () => "must not be empty" })).annotations({
    description: "Exact, case-sensitive text of the body as read."
  }),
  replace: Schema.optional(Text.annotations({ description: "Replacement text (default: empty)." })),
  all: Schema.optional(
    Schema.Boolean.annotations({
      description: "Replace every occurrence (at least one); else find must occur exactly once."
    })
  )
}).annotations({ identifier: "Replacement" })

export const Replacements = Schema.Array(Replacement)
  .pipe(maxItems(MAX_REPLACEMENTS))
  .annotations({
    description: `Up to ${MAX_REPLACEMENTS}, applied in order; if one fails, nothing is saved (replacement_conflict).`
  })

export class UpdateArticlePayload extends Schema.Class<UpdateArticlePayload>("UpdateArticlePayload")(
  {
    title: Schema.optional(Title),
    body: Body,
    reason: Schema.optional(Reason)
  },
  { description: "Replaces the title (optional) and the HTML body (required)." }
) {}

const patchFields = {
  title: Schema.optional(Title),
  meta_description: Schema.optional(MetaDescription),
  replacements: Schema.optional(Replacements),
  reason: Schema.optional(Reason)
}

/** What a PATCH changes: every field of its payload but the reason; it needs at least one of them. */
export const patchChanges = (Object.keys(patchFields) as Array<keyof typeof patchFields>).filter(
  (key): key is Exclude<keyof typeof patchFields, "reason"> => key !== "reason"
)

/** `["a", "b", "c"]` as "a, b and c". */
export const inWords = (names: ReadonlyArray<string>) =>
  names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`

export class PatchArticlePayload extends Schema.Class<PatchArticlePayload>("PatchArticlePayload")(patchFields, {
  description: `Small edits; at least one of ${inWords(patchChanges)}.`
}) {}

/**
 * The editor's save: any of title, body and meta description in one change, with a reason. The same fields and
 * bounds as the API's payloads, decoded the same way, so the web page refuses what the API refuses, in its words.
 */
export const EditArticlePayload = strictBody(
  Schema.Struct({
    title: Schema.optional(Title),
    body: Schema.optional(Body),
    meta_description: Schema.optional(MetaDescription),
    reason: Schema.optional(Reason)
  })
)

/**
 * The content fields a preview does not flag as `<field>_changed`: the body's change is its diff, and the featured
 * image is seen in the article the preview comes with. Every other content field has its flag.
 */
const unflagged = ["body", "featured_image_url"] as const
type Flagged = Exclude<ContentField, (typeof unflagged)[number]>
const flagged = contentFields.filter((field): field is Flagged => !unflagged.some((other) => other === field))

const flagFields = Object.fromEntries(flagged.map((field) => [`${field}_changed`, Schema.Boolean])) as {
  readonly [K in Flagged as `${K}_changed`]: typeof Schema.Boolean
}

/** The flagged fields as the article has them now, which a preview compares the proposed ones (`data`'s) with. */
const CurrentFields = ArticleContent.pipe(Schema.pick(...flagged)).annotations({
  description: `The ${inWords(flagged)} before the change.`
})

export const Preview = Schema.Struct({
  changed: Schema.Boolean.annotations({ description: "Whether saving would change the article." }),
  diff: Schema.String.annotations({
    description: "Unified diff of the body, current to proposed (canonical HTML); empty when the body stays."
  }),
  ...flagFields,
  current: CurrentFields
}).annotations({ identifier: "Preview", description: "What a dry run's change would do; nothing was saved." })
export type Preview = typeof Preview.Type

const fieldEquivalence = Object.fromEntries(
  flagged.map((field) => [field, Schema.equivalence(ArticleContent.fields[field])])
) as { readonly [K in Flagged]: (a: ArticleContent[K], b: ArticleContent[K]) => boolean }

/**
 * A preview's flags and the flagged fields as they stand: for each flagged content field, whether `next` changes it,
 * and its `current` value.
 */
export const changeFlags = (current: ArticleContent, next: ArticleContent) => ({
  ...(Object.fromEntries(
    flagged.map((field) => [`${field}_changed`, !fieldEquivalence[field](current[field], next[field])])
  ) as { readonly [K in keyof typeof flagFields]: boolean }),
  current: Struct.pick(current, ...flagged)
})

/** The preview of a change that leaves `content` as it is. */
export const noChange = (content: ArticleContent): Preview => ({
  changed: false,
  diff: "",
  ...changeFlags(content, content)
})

/** A restore's body: only why, since the content is the revision's. */
export const RestoreRevisionPayload = Schema.Struct({
  reason: Schema.optional(
    Reason.annotations({
      description:
        "Why the revision is brought back, one line; kept with the new revision (default: Restored revision N)."
    })
  )
})
export type RestoreRevisionPayload = typeof RestoreRevisionPayload.Type

/** `dry_run` on PUT, PATCH and the featured image. */
export const DryRunQuery = Schema.Struct({
  dry_run: Schema.optional(
    Schema.BooleanFromString.annotations({
      jsonSchema: {
        type: "boolean",
        description: "true: check all and answer the would-be article; saves nothing, uses none of the day's edits."
      }
    })
  )
})

/** Whether an `If-Match` value names `revision`: `*`, or a list of entity tags one of which is `"<revision>"`. */
export const ifMatchAllows = (ifMatch: string, revision: number) =>
  ifMatch
    .split(",")
    .map((tag) => tag.trim())
    .some((tag) => tag === "*" || tag === `"${revision}"` || tag === String(revision))

/** The entity tag of an article: its current revision, quoted. */
export const etagOf = (revision: number) => `"${revision}"`

/** The optional headers of the article writes: a precondition and a retry key. */
export const WriteHeaders = Schema.Struct({
  "if-match": Schema.optional(
    Text.annotations({
      description: 'Save only if still at this revision ("<revision>", as read); else precondition_failed.'
    })
  ),
  "idempotency-key": Schema.optional(
    Schema.String.pipe(
      Schema.pattern(/^[\x21-\x7e]{1,255}$/, { message: () => "must be 1 to 255 printable ASCII characters" })
    ).annotations({
      description: "Unique per change: a retry with it replays the first answer, never changing twice."
    })
  )
})

const IMAGE_URL_DESCRIPTION = `Absolute http(s) address of the image, at most ${MAX_IMAGE_URL} characters; stored as given.`

export const ImageUrl = Text.pipe(
  maxLength(MAX_IMAGE_URL),
  Schema.filter(
    (s) => {
      if (!URL.canParse(s)) return false
      const protocol = new URL(s).protocol
      return protocol === "http:" || protocol === "https:"
    },
    { message: () => "must be an absolute http or https URL" }
  )
).annotations({
  description: IMAGE_URL_DESCRIPTION,
  // A schema given here replaces the generated one whole, so it repeats the description.
  jsonSchema: { type: "string", format: "uri", maxLength: MAX_IMAGE_URL, description: IMAGE_URL_DESCRIPTION }
})

const IMAGE_FILE_DESCRIPTION =
  "The image: JPEG, PNG, WebP, GIF or AVIF (judged by its bytes), at most 10 MiB. Wins over url."

export const FeaturedImageMultipart = Schema.Struct({
  // The parser hands over a part's files as a list of exactly one; clients send one file field, and that is what
  // the document shows (a binary string is a file to every client generator, and to the agent tools' derivation).
  image: Schema.optional(
    Multipart.SingleFileSchema.annotations({
      description: IMAGE_FILE_DESCRIPTION,
      jsonSchema: { type: "string", format: "binary", description: IMAGE_FILE_DESCRIPTION },
      // The parser's own words name its internal types; the client needs to know what to send.
      message: () => ({ message: "must be one file part (with a file name) holding the image", override: true })
    })
  ),
  url: Schema.optional(ImageUrl),
  reason: Schema.optional(Reason)
}).annotations({ identifier: "FeaturedImageUpload" })

export const FeaturedImageJson = Schema.Struct({
  url: ImageUrl,
  reason: Schema.optional(Reason)
}).annotations({ identifier: "FeaturedImageUrl" })
