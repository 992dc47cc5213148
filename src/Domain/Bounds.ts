import { Schema } from "effect"

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
