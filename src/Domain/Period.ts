import { Either } from "effect"
import { addDays, daysInMonth, formatCalendarDate, isCalendarDate, toCalendarDate } from "./Dates.js"

export interface DateRange {
  readonly from: string
  readonly to: string
}

/** The first and last day of a month (1-12), the year taken literally. */
const monthRange = (year: number, month: number): DateRange => ({
  from: formatCalendarDate(year, month, 1),
  to: formatCalendarDate(year, month, daysInMonth(year, month))
})

/**
 * Resolves the stats query to inclusive UTC days. `from` and `to` go together and win over `period`;
 * without either, the period is `this_month` (the whole current calendar month).
 * Left: the reason the query is refused.
 */
export const resolvePeriod = (
  query: { readonly period?: string | undefined; readonly from?: string | undefined; readonly to?: string | undefined },
  now: Date
): Either.Either<DateRange, string> => {
  if (query.from !== undefined || query.to !== undefined) {
    if (query.from === undefined || query.to === undefined) return Either.left("from and to must be given together.")
    if (query.from > query.to) return Either.left("from must not be after to.")
    return Either.right({ from: query.from, to: query.to })
  }
  const today = toCalendarDate(now)
  const year = now.getUTCFullYear()
  const month = now.getUTCMonth() + 1
  const period = query.period ?? "this_month"
  switch (period) {
    case "this_month":
      return Either.right(monthRange(year, month))
    case "last_month":
      return Either.right(month === 1 ? monthRange(year - 1, 12) : monthRange(year, month - 1))
    case "last_30_days":
      return Either.right({ from: addDays(today, -29), to: today })
  }
  const monthMatch = /^(\d{4})-(\d{2})$/.exec(period)
  if (monthMatch !== null) {
    const [y, m] = [Number(monthMatch[1]), Number(monthMatch[2])]
    return y >= 1 && m >= 1 && m <= 12
      ? Either.right(monthRange(y, m))
      : Either.left(`period ${period} is not a month of years 0001-9999.`)
  }
  if (isCalendarDate(period)) return Either.right({ from: period, to: period })
  return Either.left(
    /^\d{4}-\d{2}-\d{2}$/.test(period)
      ? `period ${period} is not a calendar date of years 0001-9999.`
      : "period must be this_month, last_month, last_30_days, YYYY-MM or YYYY-MM-DD."
  )
}

/** `YYYY-MM` of a month given by its index, `year * 12 + (month - 1)`. */
const monthOfIndex = (index: number): string =>
  formatCalendarDate(Math.floor(index / 12), (index % 12) + 1, 1).slice(0, 7)

/** The index of 0001-01, the first month there is. */
const FIRST_MONTH = 12

/**
 * The `count` calendar months (UTC) that end with the month of `day` (`YYYY-MM-DD`), oldest first, as `YYYY-MM`,
 * and the days they cover; a series that would reach back past 0001-01 starts there. For the per-month charts,
 * `lastMonths(today, 12)` is this month and the eleven before it; for the stats' `months`, `day` is the range's `to`.
 */
export const lastMonths = (
  day: string,
  count: number
): { readonly months: ReadonlyArray<string>; readonly range: DateRange } => {
  const [year, month] = day.split("-").map(Number) as [number, number]
  const last = year * 12 + (month - 1)
  const first = Math.max(last - (count - 1), FIRST_MONTH)
  return {
    months: Array.from({ length: last - first + 1 }, (_, i) => monthOfIndex(first + i)),
    range: { from: `${monthOfIndex(first)}-01`, to: monthRange(year, month).to }
  }
}
