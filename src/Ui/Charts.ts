import type { MonthStats, Stats } from "../Domain/Stats.js"
import { html, SafeHtml } from "./Markup.js"

/**
 * One series of a bar chart; `key` is also its class, which colours its bars and its legend swatch. A `hatched` series
 * is drawn striped, so that it is told apart from the others by more than its colour.
 */
export interface ChartSeries {
  readonly key: "articles" | "industry" | "local" | "live" | "lost" | "pending"
  readonly label: string
  readonly values: ReadonlyArray<number>
  readonly hatched?: boolean
}

const MONTH_NAMES = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const
const LONG_MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December"
] as const

const partsOf = (month: string) => {
  const [year, number] = month.split("-")
  return { year: year ?? "", index: Number(number) - 1 }
}

/** `2026-11` as `November 2026`. */
export const monthName = (month: string) => {
  const { year, index } = partsOf(month)
  return `${LONG_MONTH_NAMES[index] ?? month} ${year}`
}

/** The step between grid lines: 1, 2 or 5 times a power of ten, giving at most four steps up to `max`. */
const gridStep = (max: number) => {
  const raw = Math.max(1, max / 4)
  const power = 10 ** Math.floor(Math.log10(raw))
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) ?? 10 * power
}

// The drawing's own units; the SVG scales to its box, and 11-unit text stays readable from a phone to a desktop.
const WIDTH = 360
const HEIGHT = 200
const LEFT = 30
const RIGHT = 4
const TOP = 16
const BOTTOM = 34

const svg = (id: string, months: ReadonlyArray<string>, series: ReadonlyArray<ChartSeries>) => {
  const totals = months.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0))
  const step = gridStep(Math.max(0, ...totals))
  const top = Math.max(step, Math.ceil(Math.max(0, ...totals) / step) * step)
  const plotHeight = HEIGHT - TOP - BOTTOM
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight
  const slot = (WIDTH - LEFT - RIGHT) / months.length
  const barWidth = Math.min(24, slot * 0.64)
  const round = (n: number) => Math.round(n * 10) / 10
  const parts: Array<string> = []
  const hatchOf = (s: ChartSeries) => `${id}-${s.key}-hatch`
  for (const s of series.filter((s) => s.hatched === true)) {
    parts.push(
      `<defs><pattern id="${hatchOf(s)}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect class="${s.key} hatch-ground" width="6" height="6"/><path class="${s.key} hatch-line" d="M0 0V6" stroke-width="3"/></pattern></defs>`
    )
  }
  for (let tick = 0; tick <= top; tick += step) {
    parts.push(
      `<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${round(y(tick))}" y2="${round(y(tick))}"/>`,
      `<text x="${LEFT - 6}" y="${round(y(tick) + 4)}" text-anchor="end">${tick}</text>`
    )
  }
  months.forEach((month, i) => {
    const x = round(LEFT + slot * i + (slot - barWidth) / 2)
    const centre = round(LEFT + slot * i + slot / 2)
    let base = 0
    for (const s of series) {
      const value = s.values[i] ?? 0
      if (value > 0) {
        const height = round(y(base) - y(base + value))
        const fill = s.hatched === true ? ` fill="url(#${hatchOf(s)})"` : ""
        parts.push(
          `<rect class="${s.key}${s.hatched === true ? " hatched" : ""}"${fill} x="${x}" y="${round(y(base + value))}" width="${round(barWidth)}" height="${height}" rx="2"><title>${monthName(month)}: ${value} ${escapeText(s.label.toLowerCase())}</title></rect>`
        )
      }
      base += value
    }
    if (totals[i]! > 0) {
      parts.push(
        `<text class="value" x="${centre}" y="${round(y(totals[i]!) - 4)}" text-anchor="middle">${totals[i]}</text>`
      )
    }
    const { year, index } = partsOf(month)
    parts.push(
      `<text x="${centre}" y="${HEIGHT - BOTTOM + 15}" text-anchor="middle">${MONTH_NAMES[index] ?? ""}</text>`
    )
    // The year under each January; the caption names the first and the last month.
    if (index === 0) {
      parts.push(`<text x="${centre}" y="${HEIGHT - BOTTOM + 29}" text-anchor="middle">${year}</text>`)
    }
  })
  // Every value written here is a number or a fixed name; labels pass through escapeText.
  return new SafeHtml(
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" aria-hidden="true" focusable="false">${parts.join("")}</svg>`
  )
}

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/**
 * A bar chart of values per month, drawn as SVG (stacked when there are several series), with its figures as a table
 * for screen readers: the drawing itself is hidden from them, the table says the same month by month. The table is
 * hidden in a box of its own, which clips it: a table is never narrower than its columns, however it is styled.
 */
export const monthlyChart = (options: {
  readonly id: string
  readonly caption: string
  readonly months: ReadonlyArray<string>
  readonly series: ReadonlyArray<ChartSeries>
}) => {
  const { id, months, series } = options
  const several = series.length > 1
  return html`<figure class="chart" aria-labelledby="${id}-caption">
<figcaption id="${id}-caption">${options.caption}<span class="period-range">${
    months.length === 0 ? "" : `${monthName(months[0]!)} to ${monthName(months[months.length - 1]!)}`
  }</span></figcaption>
${svg(id, months, series)}
${several ? html`<ul class="legend" aria-hidden="true">${series.map((s) => html`<li class="${s.key}${s.hatched === true ? " hatched" : ""}">${s.label}</li>`)}</ul>` : null}
<div class="visually-hidden"><table>
<caption>${options.caption}</caption>
<thead><tr><th scope="col">Month</th>${series.map((s) => html`<th scope="col" class="num">${s.label}</th>`)}${
    several ? html`<th scope="col" class="num">Total</th>` : null
  }</tr></thead>
<tbody>${months.map(
    (month, i) =>
      html`<tr><th scope="row">${monthName(month)}</th>${series.map((s) => html`<td class="num">${s.values[i] ?? 0}</td>`)}${
        several ? html`<td class="num">${series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0)}</td>` : null
      }</tr>`
  )}</tbody>
</table></div>
</figure>`
}

/** The four counts of a period as a list of figures (the website page and the assistants' stats card). */
export const countsList = (
  counts: Pick<Stats, "articles_published" | "backlinks_acquired" | "backlinks_industry" | "backlinks_local">
) => html`<dl class="stats">
<div><dt>Articles published</dt><dd>${counts.articles_published}</dd></div>
<div><dt>Backlinks acquired</dt><dd>${counts.backlinks_acquired}</dd></div>
<div><dt>Industry backlinks</dt><dd>${counts.backlinks_industry}</dd></div>
<div><dt>Local backlinks</dt><dd>${counts.backlinks_local}</dd></div>
</dl>`

/**
 * The backlinks acquired each month by how they stand now: live, lost (striped) and pending (not yet found, or
 * not known), whose sum is the month's backlinks acquired.
 */
const healthChart = (months: ReadonlyArray<MonthStats>) =>
  monthlyChart({
    id: "chart-health",
    caption: "Backlinks acquired per month, live and lost now",
    months: months.map((m) => m.month),
    series: [
      { key: "live", label: "Live", values: months.map((m) => m.backlinks_live) },
      { key: "lost", label: "Lost", values: months.map((m) => m.backlinks_lost), hatched: true },
      {
        key: "pending",
        label: "Pending",
        values: months.map((m) => Math.max(0, m.backlinks_acquired - m.backlinks_live - m.backlinks_lost))
      }
    ]
  })

/**
 * The month charts of a website: articles published, and backlinks acquired by category, month by month; with
 * `health`, also how the backlinks of each month stand now (the website page).
 */
export const monthCharts = (
  months: ReadonlyArray<MonthStats>,
  options: { readonly health?: boolean } = {}
) => html`<div class="charts">
${monthlyChart({
  id: "chart-articles",
  caption: "Articles published per month",
  months: months.map((m) => m.month),
  series: [{ key: "articles", label: "Articles", values: months.map((m) => m.articles_published) }]
})}
${monthlyChart({
  id: "chart-backlinks",
  caption: "Backlinks acquired per month",
  months: months.map((m) => m.month),
  series: [
    { key: "industry", label: "Industry", values: months.map((m) => m.backlinks_industry) },
    { key: "local", label: "Local", values: months.map((m) => m.backlinks_local) }
  ]
})}
${options.health === true ? healthChart(months) : null}
</div>`
