// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { addDays, formatCalendarDate, isCalendarDate } from "../src/Domain/Dates.js"
import { resolvePeriod } from "../src/Domain/Period.js"

// A reference calendar that shares no code with the one under test and never goes through Date: day numbers of the
// proleptic Gregorian calendar (Howard Hinnant's days_from_civil and civil_from_days), 0 being 1970-01-01.

const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

const civilFromDays = (days: number): readonly [number, number, number] => {
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day]
}

const referenceDaysInMonth = (year: number, month: number): number =>
  daysFromCivil(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - daysFromCivil(year, month, 1)

const pad = (n: number, width: number) => String(n).padStart(width, "0")
const written = ([y, m, d]: readonly [number, number, number]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`
const dayNumberOf = (date: string) => {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number]
  return daysFromCivil(y, m, d)
}

const FIRST = daysFromCivil(1, 1, 1)
const LAST = daysFromCivil(9999, 12, 31)

/** Any day of years 0001-9999, by its day number. */
const dayNumber = fc.integer({ min: FIRST, max: LAST })
/** Any day of years 0001-9999, written `YYYY-MM-DD`; the edges of months and of the range come up often. */
const calendarDay = fc.oneof(
  dayNumber.map((n) => written(civilFromDays(n))),
  fc
    .record({ year: fc.integer({ min: 1, max: 9999 }), month: fc.integer({ min: 1, max: 12 }), last: fc.boolean() })
    .map(({ year, month, last }) => written([year, month, last ? referenceDaysInMonth(year, month) : 1])),
  fc.constantFrom("0001-01-01", "0001-12-31", "0050-03-01", "0099-12-31", "0100-01-01", "9999-12-31")
)
const yearMonth = fc.record({ year: fc.integer({ min: 1, max: 9999 }), month: fc.integer({ min: 1, max: 12 }) })
const runs = { numRuns: 2000 }

describe("calendar dates, years 0001-9999 taken literally", () => {
  it("the reference calendar agrees with Date where Date is trustworthy (1970-2100)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: daysFromCivil(2100, 12, 31) }), (n) => {
        assert.strictEqual(written(civilFromDays(n)), new Date(n * 86_400_000).toISOString().slice(0, 10))
        assert.strictEqual(dayNumberOf(written(civilFromDays(n))), n)
      }),
      runs
    )
  })

  it("isCalendarDate accepts exactly the real days of years 0001-9999", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        (year, month, day) => {
          const real = year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= referenceDaysInMonth(year, month)
          assert.strictEqual(isCalendarDate(written([year, month, day])), real, written([year, month, day]))
        }
      ),
      runs
    )
  })

  it("isCalendarDate: years 0, 50, 100, 400 and 9999 at their edges", () => {
    for (const [date, real] of [
      ["0000-01-01", false],
      ["0000-02-29", false],
      ["0001-01-01", true],
      ["0004-02-29", true],
      ["0050-02-29", false],
      ["0050-03-01", true],
      ["0100-02-29", false],
      ["0400-02-29", true],
      ["1900-02-29", false],
      ["9999-12-31", true],
      ["10000-01-01", false],
      ["+10000-01-01", false],
      ["-0001-01-01", false],
      ["2026-1-01", false]
    ] as const) {
      assert.strictEqual(isCalendarDate(date), real, date)
    }
  })

  it("formatCalendarDate writes every year with four digits", () => {
    assert.strictEqual(formatCalendarDate(50, 3, 1), "0050-03-01")
    assert.strictEqual(formatCalendarDate(1, 1, 1), "0001-01-01")
    assert.strictEqual(formatCalendarDate(9999, 12, 31), "9999-12-31")
  })

  it("addDays moves by exactly that many days, within years 0001-9999", () => {
    fc.assert(
      fc.property(calendarDay, fc.integer({ min: -4000, max: 4000 }), (day, days) => {
        const target = dayNumberOf(day) + days
        fc.pre(target >= FIRST && target <= LAST)
        assert.strictEqual(addDays(day, days), written(civilFromDays(target)), `${day} + ${days}`)
      }),
      runs
    )
  })

  it("addDays across the whole range: from 0001-01-01 to any day and back", () => {
    fc.assert(
      fc.property(dayNumber, (n) => {
        const day = written(civilFromDays(n))
        assert.strictEqual(addDays("0001-01-01", n - FIRST), day)
        assert.strictEqual(addDays(day, FIRST - n), "0001-01-01")
      }),
      runs
    )
  })

  it("addDays does not read years 0-99 as 1900-1999", () => {
    assert.strictEqual(addDays("0050-02-28", 1), "0050-03-01")
    assert.strictEqual(addDays("0004-02-28", 1), "0004-02-29")
    assert.strictEqual(addDays("0100-02-28", 1), "0100-03-01")
    assert.strictEqual(addDays("0099-12-31", 1), "0100-01-01")
    assert.strictEqual(addDays("0001-01-02", -1), "0001-01-01")
    assert.strictEqual(addDays("9999-12-30", 1), "9999-12-31")
  })
})

describe("resolvePeriod, years 0001-9999 taken literally", () => {
  const now = new Date("2026-10-15T12:00:00Z")

  it("a month period YYYY-MM is that month's first to its real last day", () => {
    fc.assert(
      fc.property(yearMonth, ({ year, month }) => {
        const period = `${pad(year, 4)}-${pad(month, 2)}`
        assert.deepStrictEqual(
          resolvePeriod({ period }, now),
          Either.right({ from: `${period}-01`, to: `${period}-${pad(referenceDaysInMonth(year, month), 2)}` })
        )
      }),
      runs
    )
  })

  it("a day period YYYY-MM-DD is that day alone", () => {
    fc.assert(
      fc.property(calendarDay, (day) => {
        assert.deepStrictEqual(resolvePeriod({ period: day }, now), Either.right({ from: day, to: day }))
      }),
      runs
    )
  })

  it("from and to are taken as given", () => {
    fc.assert(
      fc.property(calendarDay, calendarDay, (a, b) => {
        const [from, to] = a <= b ? [a, b] : [b, a]
        assert.deepStrictEqual(resolvePeriod({ from, to }, now), Either.right({ from, to }))
      }),
      runs
    )
  })

  it("periods in year 0000 are refused", () => {
    for (const period of ["0000-01", "0000-12", "0000-03-01", "0000-02-29"]) {
      assert.isTrue(Either.isLeft(resolvePeriod({ period }, now)), period)
    }
  })

  it("this_month, last_month and last_30_days follow the current UTC day in any year 0002-9999", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: daysFromCivil(2, 1, 1), max: LAST }),
        fc.integer({ min: 0, max: 86_399_999 }),
        (n, ms) => {
          const [year, month, day] = civilFromDays(n)
          const instant = new Date(0)
          instant.setUTCFullYear(year, month - 1, day)
          instant.setUTCHours(0, 0, 0, ms)
          const today = written([year, month, day])
          const monthOf = (y: number, m: number) => ({
            from: written([y, m, 1]),
            to: written([y, m, referenceDaysInMonth(y, m)])
          })
          assert.deepStrictEqual(resolvePeriod({ period: "this_month" }, instant), Either.right(monthOf(year, month)))
          assert.deepStrictEqual(
            resolvePeriod({ period: "last_month" }, instant),
            Either.right(month === 1 ? monthOf(year - 1, 12) : monthOf(year, month - 1))
          )
          assert.deepStrictEqual(
            resolvePeriod({ period: "last_30_days" }, instant),
            Either.right({ from: written(civilFromDays(n - 29)), to: today })
          )
        }
      ),
      runs
    )
  })
})
