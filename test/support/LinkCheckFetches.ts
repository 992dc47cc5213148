import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { outcomeOf } from "../../src/Domain/LinkCheck.js"
import { OutboundPolicy } from "../../src/Http/OutboundFetch.js"
import {
  fetchPage,
  LINK_CHECK_LIMITS,
  type PageCheck,
  type PageLimits,
  type PageRequest
} from "../../src/LinkChecks/PageFetcher.js"

/**
 * The link checker's page fetch against websites of the test's own on 127.0.0.1, reached as
 * `OUTBOUND_ALLOW_LOOPBACK=true` allows (loopback only, over http); the guard still refuses every other private
 * address, and without the setting loopback too.
 */

export const TARGET = "https://client.test/plumbing"
export const USER_AGENT = "content-backlink-service link checker (+https://cbs.test/about/link-checks)"
export const MiB = 1024 * 1024

export const loopbackAllowed = { trustedHosts: new Set<string>(), ca: undefined, allowLoopback: true }

export const makeRequest = (sourceUrl: string, fields: Partial<PageRequest> = {}): PageRequest => ({
  sourceUrl,
  targetUrl: TARGET,
  etag: null,
  lastModified: null,
  foundBefore: false,
  userAgent: USER_AGENT,
  ...fields
})

/** A check of `sourceUrl` with loopback allowed (as in development), the link checker's limits unless given. */
export const check = (sourceUrl: string, fields: Partial<PageRequest> = {}, limits: PageLimits = LINK_CHECK_LIMITS) =>
  fetchPage(makeRequest(sourceUrl, fields), limits).pipe(Effect.provideService(OutboundPolicy, loopbackAllowed))

/** Limits for a host that never answers or never ends: the time runs out at once, so no test waits 15 s. */
export const QUICK: PageLimits = { ...LINK_CHECK_LIMITS, timeoutMs: 300 }

export const makePage = (body: string, head = "") =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`
export const makeLink = (href: string, text = "Best plumber", attributes = "") =>
  `<a href="${href}"${attributes}>${text}</a>`
export const LINKED = makePage(`<p>We recommend ${makeLink(TARGET)}.</p>`)
export const UNLINKED = makePage(`<p>We recommend ${makeLink("https://other.test/")}.</p>`)

export const assertFound = (result: PageCheck, anchorText = "Best plumber") => {
  assert.strictEqual(result.error, null)
  assert.strictEqual(outcomeOf(result.fetch), "found")
  assert.strictEqual(result.anchorText, anchorText)
}

export const assertNoAnswer = (result: PageCheck, error: RegExp) => {
  assert.strictEqual(result.fetch._tag, "NoAnswer")
  assert.strictEqual(outcomeOf(result.fetch), "unreachable")
  assert.strictEqual(result.httpStatus, null)
  assert.match(result.error ?? "", error)
}
