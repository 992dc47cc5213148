import type { HttpServerRequest } from "@effect/platform"
import { Effect, type Option } from "effect"

/** Fields of a URL-encoded form or query string, with the names that were sent more than once. */
export interface Form {
  /** The first value of a field, if it was sent. */
  readonly get: (name: string) => string | undefined
  /** Every value of a field, in the order sent (the checked boxes of a group). */
  readonly getAll: (name: string) => ReadonlyArray<string>
  readonly duplicates: ReadonlyArray<string>
  /** The first field whose name or value holds a NUL (U+0000), which no text the service keeps may hold. */
  readonly withNul: string | undefined
}

/** A form from `name=value` pairs. */
export const formOf = (pairs: Iterable<readonly [string, string]>): Form => {
  const values = new Map<string, Array<string>>()
  const duplicates = new Set<string>()
  let withNul: string | undefined
  for (const [name, value] of pairs) {
    const sent = values.get(name)
    if (sent !== undefined) {
      duplicates.add(name)
      sent.push(value)
    } else values.set(name, [value])
    if (withNul === undefined && (name.includes("\0") || value.includes("\0"))) withNul = name.replaceAll("\0", "\\0")
  }
  return {
    get: (name) => values.get(name)?.[0],
    getAll: (name) => values.get(name) ?? [],
    duplicates: [...duplicates],
    withNul
  }
}

/** The query string of a request URL, without the `?`. */
export const queryOf = (url: string): string => {
  const at = url.indexOf("?")
  return at === -1 ? "" : url.slice(at + 1)
}

/** The URL-encoded body of a request; None when it cannot be read. */
export const readForm = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Option.Option<Form>> =>
  request.urlParamsBody.pipe(Effect.map(formOf), Effect.option)

/** Whether the request declares a URL-encoded form body. */
export const isFormRequest = (request: HttpServerRequest.HttpServerRequest): boolean =>
  (request.headers["content-type"] ?? "").toLowerCase().split(";")[0]!.trim() === "application/x-www-form-urlencoded"
