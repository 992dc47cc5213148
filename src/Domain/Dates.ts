import { Schema } from "effect"

/** Whether `y-m-d` names a real day of the Gregorian calendar. */
export const isCalendarDate = (s: string): boolean => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (match === null) return false
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(y, m - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

/** A calendar date `YYYY-MM-DD` (UTC); impossible days such as `2026-02-30` are refused. */
export const CalendarDate = Schema.String.pipe(
  Schema.filter(isCalendarDate, {
    message: () => "must be a calendar date YYYY-MM-DD",
    jsonSchema: { format: "date" }
  })
)

/** Formats a Date as the `YYYY-MM-DD` UTC day it falls on. */
export const toCalendarDate = (date: Date): string => date.toISOString().slice(0, 10)

/** Adds whole days to a calendar date. */
export const addDays = (day: string, days: number): string => {
  const date = new Date(`${day}T00:00:00Z`)
  date.setUTCDate(date.getUTCDate() + days)
  return toCalendarDate(date)
}

/** An RFC 3339 UTC timestamp with second precision, e.g. `2026-11-03T09:30:00Z`. */
export const Timestamp = Schema.String.annotations({
  description: "RFC 3339 UTC timestamp, e.g. 2026-11-03T09:30:00Z",
  jsonSchema: { type: "string", format: "date-time" }
})

/** Optional `from`/`to` query parameters of the list endpoints. */
export const DateRangeQuery = {
  from: Schema.optional(
    CalendarDate.annotations({ description: "First day, YYYY-MM-DD (UTC, inclusive)." })
  ),
  to: Schema.optional(
    CalendarDate.annotations({ description: "Last day, YYYY-MM-DD (UTC, inclusive)." })
  )
}

/** Whether a range is in order; `from` after `to` is refused with 422. */
export const isOrderedRange = (range: { readonly from?: string | undefined; readonly to?: string | undefined }) =>
  range.from === undefined || range.to === undefined || range.from <= range.to

/**
 * Inclusive UTC days as the half-open range of instants they cover, `[start, end)`, written with an explicit `Z`
 * so the database reads them as UTC whatever its session time zone.
 */
export const utcInstants = (range: { readonly from?: string | undefined; readonly to?: string | undefined }) => ({
  start: range.from === undefined ? undefined : `${range.from}T00:00:00Z`,
  end: range.to === undefined ? undefined : `${addDays(range.to, 1)}T00:00:00Z`
})
