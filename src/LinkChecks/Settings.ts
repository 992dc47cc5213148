import { Context } from "effect"
import { LINK_CHECK_LIMITS, type PageLimits } from "./PageFetcher.js"

/** What this instance's link checks send and how far they go. `cbs serve` provides it from the configuration. */
export interface LinkCheckSettingsShape {
  /** Whether this instance runs link checks in the background (LINK_CHECKS; `cbs backlinks check` runs either way). */
  readonly enabled: boolean
  /** The User-Agent of every check: it names the service and the page that explains the checker. */
  readonly userAgent: string
  readonly limits: PageLimits
}

/** The User-Agent of the link checker, for a service whose pages are at `baseUrl`. */
export const linkCheckerAgent = (baseUrl: string) =>
  `content-backlink-service-link-checker/1.0 (+${baseUrl.replace(/\/+$/, "")}/link-checker)`

export class LinkCheckSettings extends Context.Reference<LinkCheckSettings>()("LinkChecks/Settings", {
  defaultValue: (): LinkCheckSettingsShape => ({
    enabled: true,
    userAgent: linkCheckerAgent("http://localhost:3000"),
    limits: LINK_CHECK_LIMITS
  })
}) {}
