import { Schema } from "effect"

/**
 * The most characters an article body may have, as sent and as stored: 256 Ki, about five times a long article
 * (about 50 KB of HTML). Every step of a write costs time in proportion to the body (parsing, the protected-link
 * check, the stored revision, every page that shows it), so the bound is what keeps one write from delaying others.
 */
export const MAX_BODY_CHARACTERS = 262_144

/**
 * The most elements an article body may have: a long article has about 1,000, a body at the character bound written
 * as ordinary prose about 5,000. Parsing costs in proportion to elements rather than characters (3 characters make
 * a `<p>`), and the parser may create elements that the source does not write (an element reopened in every
 * paragraph after it), so this is counted both in the source and while parsing.
 */
export const MAX_BODY_ELEMENTS = 10_000

/**
 * Bounds whose breach answers 422 `validation_error` with a `limit` field. The limit travels in the issue message
 * ("at most N"), which is the only part of a decode issue the HTTP layer receives; `limitOf` reads it back.
 */
export const atMostMessage = (limit: number, unit: string) => `must be at most ${limit}${unit === "" ? "" : ` ${unit}`}`

export const limitOf = (message: string): number | undefined => {
  const match = /must be at most (\d+)/.exec(message)
  return match === null ? undefined : Number(match[1])
}

export const maxLength =
  (limit: number) =>
  <A extends string, I, R>(self: Schema.Schema<A, I, R>) =>
    self.pipe(Schema.maxLength(limit, { message: () => atMostMessage(limit, "characters") }))

export const maxItems =
  (limit: number) =>
  <A extends ReadonlyArray<unknown>, I, R>(self: Schema.Schema<A, I, R>) =>
    self.pipe(Schema.maxItems(limit, { message: () => atMostMessage(limit, "items") }))

export const lessThanOrEqualTo =
  (limit: number) =>
  <A extends number, I, R>(self: Schema.Schema<A, I, R>) =>
    self.pipe(Schema.lessThanOrEqualTo(limit, { message: () => atMostMessage(limit, "") }))
