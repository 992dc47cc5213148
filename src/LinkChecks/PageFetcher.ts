import { Effect } from "effect"
import type { LinkRel, PageFetch } from "../Domain/LinkCheck.js"
export interface PageRequest {
  /** The page fetched: the backlink's `source_url`. */
  readonly sourceUrl: string
  /** The address the link must point to: the backlink's `target_url`. */
  readonly targetUrl: string
  /** The validators the host gave at the last check, sent as If-None-Match and If-Modified-Since; null if none. */
  readonly etag: string | null
  readonly lastModified: string | null
  /**
   * Whether the last check found the link. A 304 to a conditional request says the page is as that check saw it, so
   * it is what a 304 reports as `found`.
   */
  readonly foundBefore: boolean
  /** Names the service and a page that explains the checker. */
  readonly userAgent: string
}

export interface PageLimits {
  /** The most bytes of a page read (decompressed, and compressed too); the rest is never read. */
  readonly maxBytes: number
  /** The whole check, redirects and body included. */
  readonly timeoutMs: number
  readonly maxRedirects: number
}

/** The link checker's bounds (CONTRACT "Link health"): 2 MiB read, 15 s, 5 redirects. */
export const LINK_CHECK_LIMITS: PageLimits = { maxBytes: 2 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 5 }

/** What fetching one backlink's page saw. */
export interface PageCheck {
  readonly fetch: PageFetch
  /** The final answer's status (after redirects); null when there was no answer. */
  readonly httpStatus: number | null
  /** The address the redirects ended on; null when there was no answer. */
  readonly finalUrl: string | null
  /**
   * The host answered 304 to the validators sent: the page is as the last check saw it. `fetch.found` is then the
   * request's `foundBefore`, and the rest of the finding (`rel`, `anchorText`, `metaNoindex`) is not known: the
   * caller keeps the last check's.
   */
  readonly notModified: boolean
  /** The found link's `nofollow`, `sponsored`, `ugc` values; empty when it was not found. */
  readonly rel: ReadonlyArray<LinkRel>
  readonly anchorText: string | null
  /** A robots `<meta>` of the page says noindex. */
  readonly metaNoindex: boolean
  /** An X-Robots-Tag header of the answer says noindex. */
  readonly headerNoindex: boolean
  /** The validators the host gave this time (for a 304 without them, the ones sent, still valid); null if none. */
  readonly etag: string | null
  readonly lastModified: string | null
  readonly durationMs: number
  /** How many bytes of the page were read (decompressed). */
  readonly bytesRead: number
  /** Why there was no answer, in words; null when there was one. */
  readonly error: string | null
}

export const fetchPage = (_request: PageRequest, _limits: PageLimits = LINK_CHECK_LIMITS): Effect.Effect<PageCheck> =>
  Effect.die("stub")
