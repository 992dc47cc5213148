import { Clock, Effect, Layer, Option } from "effect"
import { AppConfig, publicBaseUrl } from "../../Config.js"
import { BacklinkId, SiteId } from "../../Domain/Ids.js"
import { OutboundPolicy } from "../../Http/OutboundFetch.js"
import { Checker, type CheckResult } from "../../LinkChecks/Checker.js"
import { LINK_CHECK_LIMITS } from "../../LinkChecks/PageFetcher.js"
import { LinkCheckSettings, linkCheckerAgent } from "../../LinkChecks/Settings.js"
import { CliError } from "../CliError.js"
import type { Result } from "../Output.js"

/** One check as a line: the backlink, its page, what was seen, and the status it has now. */
const line = (result: CheckResult) => {
  const seen =
    result.http_status === null ? (result.error ?? "no fetch: an article held here") : `HTTP ${result.http_status}`
  const now = result.lost_reason === null ? result.status : `${result.status} (${result.lost_reason})`
  const change = result.changed ? ` (was ${result.previous_status ?? "unset"})` : ""
  return `${result.backlink}  ${result.source_url}  ${result.outcome}, ${seen}, ${result.duration_ms} ms  → ${now}${change}`
}

export const backlinksCheck = (args: {
  readonly site: Option.Option<number>
  readonly backlink: Option.Option<number>
}) =>
  Effect.gen(function* () {
    if (Option.isSome(args.site) && Option.isSome(args.backlink)) {
      return yield* new CliError({ message: "give --site or --backlink, not both" })
    }
    const config = yield* AppConfig
    const checker = yield* Checker
    const chosen = yield* checker.chosen({
      ...Option.match(args.site, { onNone: () => ({}), onSome: (id) => ({ site: SiteId.make(id) }) }),
      ...Option.match(args.backlink, { onNone: () => ({}), onSome: (id) => ({ backlink: BacklinkId.make(id) }) }),
      ...(Option.isNone(args.site) && Option.isNone(args.backlink) ? { dueAt: yield* Clock.currentTimeMillis } : {})
    })
    if (Option.isSome(args.backlink) && chosen.length === 0) {
      return yield* new CliError({
        message: `no backlink with id ${args.backlink.value} has a source and a target address to check`
      })
    }
    const results = yield* checker.checkNow(chosen).pipe(
      Effect.provide(
        Layer.mergeAll(
          Layer.succeed(OutboundPolicy, {
            trustedHosts: new Set<string>(),
            ca: undefined,
            allowLoopback: config.outboundAllowLoopback
          }),
          Layer.succeed(LinkCheckSettings, {
            enabled: true,
            userAgent: linkCheckerAgent(publicBaseUrl(config, config.port)),
            limits: LINK_CHECK_LIMITS
          })
        )
      )
    )
    const lost = results.filter((result) => result.status === "lost").length
    return {
      text: [
        ...results.map(line),
        `${results.length} backlink(s) checked: ${results.length - lost} not lost, ${lost} lost.`
      ],
      json: { checked: results }
    } satisfies Result
  }).pipe(Effect.provide(Checker.Default))
