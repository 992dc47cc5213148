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

/**
 * The `count` calendar months (UTC) that end with the current one, oldest first, as `YYYY-MM`, and the days they
 * cover. For the per-month charts: `lastMonths(now, 12)` is this month and the eleven before it.
 */
export const lastMonths = (
  now: Date,
  count: number
): { readonly months: ReadonlyArray<string>; readonly range: DateRange } => {
  const year = now.getUTCFullYear()
  const month = now.getUTCMonth() + 1
  const months = Array.from({ length: count }, (_, i) => {
    const index = year * 12 + (month - 1) - (count - 1 - i)
    return `${String(Math.floor(index / 12)).padStart(4, "0")}-${String((index % 12) + 1).padStart(2, "0")}`
  })
  const [firstYear, firstMonth] = months[0]!.split("-").map(Number) as [number, number]
  return {
    months,
    range: { from: monthRange(firstYear, firstMonth).from, to: monthRange(year, month).to }
  }
}
