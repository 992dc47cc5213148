import { Option, Schema } from "effect"

export const AccountId = Schema.Number.pipe(Schema.int(), Schema.positive(), Schema.brand("AccountId"))
export type AccountId = typeof AccountId.Type
export const UserId = Schema.Number.pipe(Schema.int(), Schema.positive(), Schema.brand("UserId"))
export type UserId = typeof UserId.Type
export const ApiKeyId = Schema.Number.pipe(Schema.int(), Schema.positive(), Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type
export const SiteId = Schema.Number.pipe(Schema.int(), Schema.positive(), Schema.brand("SiteId"))
export type SiteId = typeof SiteId.Type
export const ArticleId = Schema.Number.pipe(Schema.int(), Schema.positive(), Schema.brand("ArticleId"))
export type ArticleId = typeof ArticleId.Type
export const BacklinkId = Schema.Number.pipe(Schema.int(), Schema.positive(), Schema.brand("BacklinkId"))
export type BacklinkId = typeof BacklinkId.Type

/** Ids are bigint in the database; beyond this they could not be told apart as JSON numbers anyway. */
const idPattern = /^[1-9][0-9]{0,14}$/

/**
 * An id in a URL path. A path that cannot name a record (`abc`, `0`, `-1`, `1.5`) decodes to `None` instead of
 * failing, so that the endpoint answers 404 `not_found`, exactly as for an id that does not exist.
 */
export const PathId = <A extends number, I, R>(id: Schema.Schema<A, I, R>, description: string) =>
  Schema.transform(Schema.String, Schema.OptionFromSelf(Schema.typeSchema(id)), {
    strict: true,
    decode: (s) => (idPattern.test(s) ? Option.some(Number(s) as A) : Option.none()),
    encode: (o) => Option.match(o, { onNone: () => "0", onSome: String })
  }).annotations({ description, jsonSchema: { type: "integer", minimum: 1, description } })

/**
 * Annotation on an endpoint's path schema: the field that names the article a call concerns, so that the call log
 * records it from the decoded path (never from the raw URL).
 */
export const ArticleSubject = Symbol.for("content-backlink-service/ArticleSubject")
