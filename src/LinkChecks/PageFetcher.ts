import type { IncomingHttpHeaders } from "node:http"
import { Clock, Effect, Either } from "effect"
import type { LinkRel, PageFetch } from "../Domain/LinkCheck.js"
import { headerSaysNoindex } from "../Domain/Robots.js"
import { LinkFinder, type LinkFinding } from "../Html/LinkFinder.js"
import { type AnswerHead, guardedStreamGet } from "../Http/OutboundStream.js"
import type { BodyReader } from "../Http/StreamedBody.js"

/** One backlink's page to check. */
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

const ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"])

/** Whether an answer is a page to read: HTML, or a type it does not say (which browsers sniff, and read as HTML). */
const isHtml = (contentType: string | undefined) =>
  contentType === undefined || HTML_TYPES.has(contentType.split(";")[0]!.trim().toLowerCase())

const single = (value: string | undefined) => (value === undefined || value === "" ? null : value)

/** The X-Robots-Tag lines of an answer, joined by commas (Node.js joins repeated ones so). */
const robotsHeader = (headers: IncomingHttpHeaders) => {
  const value = headers["x-robots-tag"]
  return Array.isArray(value) ? value.join(", ") : (value ?? "")
}

const NOTHING_FOUND: LinkFinding = { found: false, rel: [], anchorText: null, noindex: false, encoding: null }

/**
 * Fetches one backlink's page and looks for its link, reading the page as it arrives (bounded memory; the reading
 * stops once the link has been read). Every address, each redirect's included, passes the outbound guard.
 *
 * - Only a 2xx HTML answer's body is read (one that gives no Content-Type is read as HTML, as browsers sniff it):
 *   another type (an image, a PDF, …) or a 3xx, 4xx or 5xx answer is `Answered` with `found: false` unread, which
 *   `outcomeOf` judges by its status.
 * - A 304 to a conditional request is `notModified`; a 304 to a request without validators makes no sense and is
 *   no answer.
 * - At most `maxBytes` are read, and the page is judged on them: the rest is never read (the connection is closed).
 * - The time limit covers the whole check. A page whose body is still arriving when the time runs out, or whose
 *   connection breaks off mid-body, is judged on what was read if the link was found in it (the finding stands);
 *   otherwise it is no answer (what was read says nothing of the rest).
 */
export const fetchPage = Effect.fn("LinkChecks.fetchPage")(function* (
  request: PageRequest,
  limits: PageLimits = LINK_CHECK_LIMITS
) {
  const started = yield* Clock.currentTimeMillis
  const conditional = request.etag !== null || request.lastModified !== null
  const headers: Record<string, string> = { "user-agent": request.userAgent, accept: ACCEPT }
  if (request.etag !== null) headers["if-none-match"] = request.etag
  if (request.lastModified !== null) headers["if-modified-since"] = request.lastModified
  const readerFor = (head: AnswerHead): BodyReader<LinkFinding> | undefined => {
    if (head.status < 200 || head.status >= 300 || !isHtml(head.headers["content-type"])) return undefined
    const finder = new LinkFinder({
      pageUrl: head.url,
      targetUrl: request.targetUrl,
      contentType: head.headers["content-type"]
    })
    return {
      write: (bytes) => {
        finder.write(bytes)
        return !finder.settled
      },
      end: () => finder.end()
    }
  }
  const fetched = yield* Effect.either(
    guardedStreamGet(request.sourceUrl, {
      headers,
      maxBytes: limits.maxBytes,
      timeoutMs: limits.timeoutMs,
      maxRedirects: limits.maxRedirects,
      schemes: "web",
      readerFor
    })
  )
  const durationMs = (yield* Clock.currentTimeMillis) - started
  const noAnswer = (error: string, bytesRead = 0): PageCheck => ({
    fetch: { _tag: "NoAnswer" },
    httpStatus: null,
    finalUrl: null,
    notModified: false,
    rel: [],
    anchorText: null,
    metaNoindex: false,
    headerNoindex: false,
    etag: null,
    lastModified: null,
    durationMs,
    bytesRead,
    error
  })
  if (Either.isLeft(fetched)) return noAnswer(fetched.left.message)
  const { head, end, read, bytesRead, problem } = fetched.right
  const finding = read ?? NOTHING_FOUND
  if ((end === "timed out" || end === "broken") && !finding.found) return noAnswer(problem ?? end, bytesRead)
  const notModified = head.status === 304
  if (notModified && !conditional) return noAnswer("it answered 304 Not Modified to a request without validators")
  const etag = single(head.headers.etag) ?? (notModified ? request.etag : null)
  const lastModified = single(head.headers["last-modified"]) ?? (notModified ? request.lastModified : null)
  const check: PageCheck = {
    fetch: {
      _tag: "Answered",
      status: head.status,
      sourceUrl: request.sourceUrl,
      finalUrl: head.url,
      found: notModified ? request.foundBefore : finding.found
    },
    httpStatus: head.status,
    finalUrl: head.url,
    notModified,
    rel: finding.rel,
    anchorText: finding.anchorText,
    metaNoindex: finding.noindex,
    headerNoindex: headerSaysNoindex(robotsHeader(head.headers)),
    etag,
    lastModified,
    durationMs,
    bytesRead,
    error: null
  }
  return check
})
