import { Either, Schema } from "effect"
import { fromParseError } from "../Domain/DecodeIssues.js"
import { StatsQuery } from "../Domain/Queries.js"
import type { Stats } from "../Domain/Stats.js"
import { monthName } from "../Ui/Charts.js"
import { html } from "../Ui/Html.js"

const PRESETS = [
  ["this_month", "This month"],
  ["last_month", "Last month"],
  ["last_30_days", "Last 30 days"]
] as const

type Preset = (typeof PRESETS)[number][0]

/** The period a website page counts: one of the presets, a calendar month, or a range of days (a day is a range). */
export type PeriodView =
  | { readonly kind: "preset"; readonly period: Preset }
  | { readonly kind: "month"; readonly month: string }
  | { readonly kind: "range"; readonly from: string; readonly to: string }

export const THIS_MONTH: PeriodView = { kind: "preset", period: "this_month" }

const decodeQuery = Schema.decodeUnknownEither(StatsQuery)

/**
 * The period asked for in a page's query string (`period`, or `from` and `to`, as `GET …/stats` takes them), decoded
 * by the API's own schema. Left: why it is refused, in the API's words. Empty fields count as absent.
 */
export const periodQueryOf = (search: URLSearchParams): Either.Either<StatsQuery, string> => {
  const given = (name: string) => {
    const value = search.get(name)
    return value === null || value.trim() === "" ? {} : { [name]: value.trim() }
  }
  return decodeQuery({ ...given("period"), ...given("from"), ...given("to") }).pipe(
    Either.mapLeft((error) => fromParseError(error).message)
  )
}

/** How the page shows a query that the stats accepted. */
export const periodViewOf = (query: StatsQuery): PeriodView => {
  if (query.from !== undefined && query.to !== undefined) return { kind: "range", from: query.from, to: query.to }
  const period = query.period ?? "this_month"
  const preset = PRESETS.find(([value]) => value === period)
  if (preset !== undefined) return { kind: "preset", period: preset[0] }
  if (/^\d{4}-\d{2}$/.test(period)) return { kind: "month", month: period }
  return { kind: "range", from: period, to: period }
}

/** The query parameters of a period, as the page's links and forms carry it; the default period has none. */
export const periodParams = (view: PeriodView) => {
  const params = new URLSearchParams()
  if (view.kind === "preset" && view.period !== "this_month") params.set("period", view.period)
  if (view.kind === "month") params.set("period", view.month)
  if (view.kind === "range") {
    params.set("from", view.from)
    params.set("to", view.to)
  }
  return params
}

/** The summary's heading: the period in words, then its days. */
export const periodHeading = (view: PeriodView, stats: Stats) => {
  const name =
    view.kind === "preset"
      ? (PRESETS.find(([value]) => value === view.period)?.[1] ?? "This month")
      : view.kind === "month"
        ? monthName(view.month)
        : view.from === view.to
          ? view.from
          : `${view.from} to ${view.to}`
  // A range names its days already; the other periods say which days they came to.
  return view.kind === "range"
    ? html`${name}`
    : html`${name} <span class="period-range">(${stats.from} to ${stats.to})</span>`
}

/**
 * The period picker: the presets as links, a month and a range of days as small GET forms. Each keeps the article
 * status filter and search and the backlinks' status filter; paging starts again from the first page.
 */
export const periodPicker = (
  siteId: number,
  view: {
    readonly period: PeriodView
    readonly status: string | undefined
    readonly q: string | undefined
    readonly backlink_status: string | undefined
  }
) => {
  const action = `/sites/${siteId}#summary`
  const kept = new URLSearchParams()
  if (view.status !== undefined) kept.set("status", view.status)
  if (view.q !== undefined) kept.set("q", view.q)
  if (view.backlink_status !== undefined) kept.set("backlink_status", view.backlink_status)
  const keepList = [...kept].map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)
  const presetHref = (period: Preset) => {
    const params = periodParams({ kind: "preset", period })
    for (const [name, value] of kept) params.set(name, value)
    const query = params.toString()
    return `/sites/${siteId}${query === "" ? "" : `?${query}`}#summary`
  }
  const range = view.period.kind === "range" ? view.period : undefined
  return html`<nav aria-label="Period"><ul class="periods">${PRESETS.map(
    ([period, label]) =>
      html`<li><a href="${presetHref(period)}"${
        view.period.kind === "preset" && view.period.period === period ? html` aria-current="true"` : null
      }>${label}</a></li>`
  )}</ul></nav>
<div class="pickers">
<form method="get" action="${action}" class="inline">
${keepList}
<div><label for="period-month">A month <span class="hint">(YYYY-MM)</span></label>
<input type="month" id="period-month" name="period" required min="0001-01" max="9999-12"
  pattern="[0-9]{4}-[0-9]{2}" placeholder="2026-01" autocomplete="off"
  value="${view.period.kind === "month" ? view.period.month : ""}"></div>
<button type="submit">Show month</button>
</form>
<form method="get" action="${action}" class="inline">
${keepList}
<div><label for="period-from">From <span class="hint">(YYYY-MM-DD)</span></label>
<input type="date" id="period-from" name="from" required min="0001-01-01" max="9999-12-31"
  pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}" placeholder="2026-01-01" autocomplete="off" value="${range?.from ?? ""}"></div>
<div><label for="period-to">To <span class="hint">(YYYY-MM-DD)</span></label>
<input type="date" id="period-to" name="to" required min="0001-01-01" max="9999-12-31"
  pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}" placeholder="2026-01-31" autocomplete="off" value="${range?.to ?? ""}"></div>
<button type="submit">Show range</button>
</form>
</div>`
}
