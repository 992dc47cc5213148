import { Schema } from "effect"

// Calendar arithmetic is written out (or done with setUTCFullYear) rather than through `Date.UTC` or
// `new Date(y, m, d)`, which read years 0 to 99 as 1900 to 1999: the interface takes years 0001 to 9999 literally.

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

const monthLengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

/** Days in `month` (1-12) of `year` in the proleptic Gregorian calendar. */
export const daysInMonth = (year: number, month: number): number =>
  month === 2 && isLeapYear(year) ? 29 : (monthLengths[month - 1] ?? 0)

/** `YYYY-MM-DD` of a day given by its numbers; the year is written with four digits (0050, not 50). */
export const formatCalendarDate = (year: number, month: number, day: number): string =>
  `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`

/** Whether `y-m-d` names a real day of the Gregorian calendar in years 0001 to 9999 (year 0000 does not exist). */
export const isCalendarDate = (s: string): boolean => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (match === null) return false
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  return y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m)
}

/** A calendar date `YYYY-MM-DD` (UTC, years 0001-9999); impossible days such as `2026-02-30` are refused. */
export const CalendarDate = Schema.String.pipe(
  Schema.filter(isCalendarDate, {
    message: () => "must be a calendar date YYYY-MM-DD in years 0001-9999",
    jsonSchema: { format: "date" }
  })
)

/** Formats a Date as the `YYYY-MM-DD` UTC day it falls on (years 0000 to 9999; ISO 8601 writes others with a sign). */
export const toCalendarDate = (date: Date): string => date.toISOString().slice(0, 10)

/** Adds whole days (any sign) to a calendar date; exact whenever the result is in years 0001 to 9999 too. */
export const addDays = (day: string, days: number): string => {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number]
  const date = new Date(0)
  // setUTCFullYear takes the year literally and carries day overflow into months and years.
  date.setUTCFullYear(y, m - 1, d + days)
  return toCalendarDate(date)
}

/** An RFC 3339 UTC timestamp with second precision, e.g. `2026-11-03T09:30:00Z`. */
export const Timestamp = Schema.String.annotations({
  description: "RFC 3339 UTC timestamp, e.g. 2026-11-03T09:30:00Z",
  jsonSchema: { type: "string", format: "date-time" }
})

/** Optional `from`/`to` query parameters of the list endpoints. */
export const DateRangeQuery = {
  from: Schema.optional(CalendarDate.annotations({ description: "First day, YYYY-MM-DD (UTC, inclusive)." })),
  to: Schema.optional(CalendarDate.annotations({ description: "Last day, YYYY-MM-DD (UTC, inclusive)." }))
}

/** Whether a range is in order; `from` after `to` is refused with 422. */
export const isOrderedRange = (range: { readonly from?: string | undefined; readonly to?: string | undefined }) =>
  range.from === undefined || range.to === undefined || range.from <= range.to
