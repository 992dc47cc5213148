import type { MonthStats, Stats } from "../../Domain/Stats.js"
import { countsList, monthCharts, monthName } from "../Charts.js"
import { html, type SafeHtml } from "../Markup.js"
import { type CardState, type Host, startCard, structured, toolError } from "./Bridge.js"

/**
 * The card of a website's counts: the period's counts and the same month charts as the website page. When the call
 * asked for no month series (`months`), the card asks the host to call the same tool again (the one the host says it
 * shows) with `months: 12` for the twelve months that end with the period's last month; a host that calls no tools for
 * a card gets the counts only.
 */

/** The stats as the tool's structured content carries them. */
type StatsData = typeof Stats.Encoded

const CHART_MONTHS = 12

const dataOf = (content: Record<string, unknown> | undefined) =>
  (content as { readonly data?: StatsData } | undefined)?.data

/** The month series: the result's own, else one asked of the host; undefined when there is none to be had. */
const seriesFor = async (stats: StatsData, host: Host): Promise<ReadonlyArray<MonthStats> | string> => {
  if (stats.months !== undefined) return stats.months
  const tool = host.toolName
  if (host.capabilities.serverTools === undefined || tool === undefined) {
    return "This assistant's app does not let the card fetch the months."
  }
  try {
    const more = await host.callTool(tool, {
      site_id: stats.site_id,
      from: stats.from,
      to: stats.to,
      months: CHART_MONTHS
    })
    return dataOf(structured(more))?.months ?? toolError(more)?.message ?? "The month counts could not be read."
  } catch (error) {
    return error instanceof Error ? error.message : "The month counts could not be read."
  }
}

const range = (stats: StatsData) =>
  stats.from === stats.to
    ? stats.from
    : /-01$/.test(stats.from) && stats.to.slice(0, 7) === stats.from.slice(0, 7)
      ? monthName(stats.from.slice(0, 7))
      : `${stats.from} to ${stats.to}`

const render = async ({ result }: CardState, host: Host): Promise<SafeHtml> => {
  const refused = toolError(result)
  if (refused !== undefined) return html`<div class="error" role="alert"><p>${refused.message}</p></div>`
  const stats = dataOf(structured(result))
  if (stats === undefined) return html`<p class="muted" role="status">Counting…</p>`
  const series = await seriesFor(stats, host)
  return html`<h2>Website ${stats.site_id}: ${range(stats)}</h2>
${countsList(stats)}
${typeof series === "string" ? html`<p class="muted">${series}</p>` : monthCharts(series)}`
}

startCard({ name: "stats", render })
