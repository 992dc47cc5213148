import { ParseResult, Schema } from "effect"

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

/** The message of a path id that cannot name a record; the answer is a 404 `not_found` saying the same. */
export const noRecordMessage = (what: string) => `No ${what} with that id.`

const noRecord = /^No [a-z ]+ with that id\.$/

/** Whether a decode issue is a path id that cannot name a record (see `PathId`). */
export const isNoRecord = (message: string) => noRecord.test(message)

/**
 * An id in a URL path. A path that cannot name a record (`abc`, `0`, `-1`, `1.5`) fails to decode with
 * `noRecordMessage`, which the server answers as a 404 `not_found`, exactly as for an id that does not exist: so a
 * handler gets a plain id.
 */
export const PathId = <A extends number, I, R>(id: Schema.Schema<A, I, R>, what: string, description: string) =>
  Schema.transformOrFail(Schema.String, Schema.typeSchema(id), {
    strict: true,
    decode: (s, _, ast) =>
      idPattern.test(s)
        ? ParseResult.succeed(Number(s) as A)
        : ParseResult.fail(new ParseResult.Type(ast, s, noRecordMessage(what))),
    encode: (n) => ParseResult.succeed(String(n))
  }).annotations({ description, jsonSchema: { type: "integer", minimum: 1, description } })

/**
 * Annotation on an endpoint's path schema: the field that names the article a call concerns, so that the call log
 * records it from the decoded path (never from the raw URL).
 */
export const ArticleSubject = Symbol.for("content-backlink-service/ArticleSubject")
