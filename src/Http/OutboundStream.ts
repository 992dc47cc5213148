import type { LookupAddress } from "node:dns"
import type { IncomingHttpHeaders, IncomingMessage } from "node:http"
import { Clock, Deferred, Effect } from "effect"
import { outboundFailed as fail, type OutboundFetchFailed } from "./OutboundAddress.js"
import {
  addressFor,
  connectionFailed,
  type OutboundAddressPolicy,
  OutboundPolicy,
  requestTo,
  type Schemes
} from "./OutboundFetch.js"
import { ACCEPT_ENCODING, type BodyEnd, type BodyReader, type Progress, readBody } from "./StreamedBody.js"

/**
 * A guarded GET whose body is handed on as it arrives, for a page that is read rather than kept: the same guard as
 * every outbound fetch (each redirect's address checked again, the connection to the checked address), redirects
 * followed by hand, the body decompressed (gzip, deflate, br) with both the compressed and the decompressed bytes
 * bounded, and the connection destroyed as soon as the reader has enough, the bound is reached or the time is up:
 * the rest of an answer is never read.
 */

/** The answer a streamed GET ended on, before its body. */
export interface AnswerHead {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  /** The URL that answered, after redirects. */
  readonly url: string
}

export interface StreamedGet<A> {
  /** Request headers (Accept-Encoding is the fetch's own: it decompresses what it asks for). */
  readonly headers: Readonly<Record<string, string>>
  /** The most body bytes read, compressed and decompressed alike. */
  readonly maxBytes: number
  /** The whole fetch, redirects and body included. */
  readonly timeoutMs: number
  readonly maxRedirects: number
  readonly schemes: Schemes
  /** Whether the final answer's body is read, and by what; undefined leaves it unread. */
  readonly readerFor: (head: AnswerHead) => BodyReader<A> | undefined
}

export interface StreamedAnswer<A> {
  readonly head: AnswerHead
  readonly end: BodyEnd
  /** What the reader made of the body; undefined when it was not read. */
  readonly read: A | undefined
  /** How many (decompressed) bytes of the body the reader was given. */
  readonly bytesRead: number
  /** Why reading stopped short, in words, when it ended `timed out` or `broken`. */
  readonly problem: string | null
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** An address as it is requested: without its fragment, which is never sent. */
const requested = (url: URL) => url.href.replace(/#.*$/, "")

/** One request to the checked `address`, its connection destroyed when the scope closes; its answer's head. */
const openOnce = (url: URL, address: LookupAddress, policy: OutboundAddressPolicy, headers: Record<string, string>) =>
  Effect.gen(function* () {
    const answered = yield* Deferred.make<IncomingMessage, OutboundFetchFailed>()
    // The listeners are attached as the request is made, so that no event of it goes unheard.
    const req = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const req = requestTo(url, address, policy, { method: "GET", headers, agent: false })
        req.on("response", (res) => Deferred.unsafeDone(answered, Effect.succeed(res)))
        req.on("error", (error) => Deferred.unsafeDone(answered, Effect.fail(connectionFailed(error))))
        req.end()
        return req
      }),
      (req) => Effect.sync(() => req.destroy())
    )
    const res = yield* Deferred.await(answered)
    return { req, res }
  })

/** Follows redirects from `target` under the guard; the final answer, its body not read yet. */
const follow = <A>(target: string, options: StreamedGet<A>) =>
  Effect.gen(function* () {
    const policy = yield* OutboundPolicy
    const headers = { ...options.headers, "accept-encoding": ACCEPT_ENCODING }
    if (!URL.canParse(target)) return yield* fail("the address is not a URL")
    let url = new URL(target)
    const seen = new Set<string>()
    for (let redirects = 0; ; redirects++) {
      const at: URL = url
      seen.add(requested(at))
      const address = yield* addressFor(at, policy, options.schemes).pipe(
        Effect.mapError((error) => (redirects === 0 ? error : fail(`it redirects to ${at.href}: ${error.message}`)))
      )
      const { req, res } = yield* openOnce(at, address, policy, headers)
      const status = res.statusCode ?? 0
      const location: string | undefined = res.headers.location
      if (!REDIRECTS.has(status) || location === undefined) return { req, res, url: at }
      req.destroy()
      const next = URL.canParse(location, at) ? new URL(location, at) : undefined
      if (next === undefined) return yield* fail("it redirects to an address that is not a URL")
      if (seen.has(requested(next))) return yield* fail(`it redirects in a loop (back to ${next.href})`)
      if (redirects >= options.maxRedirects) return yield* fail(`it redirects more than ${options.maxRedirects} times`)
      url = next
    }
  })

/**
 * GETs `target` under the guard (see `StreamedGet`), within `timeoutMs` in all. No answer (the address refused, no
 * connection, too many redirects or a loop, no answer in time) is an `OutboundFetchFailed`; once an answer has come,
 * what its body gave is returned however its reading stopped (`BodyEnd`), the time running out included.
 */
export const guardedStreamGet = <A>(
  target: string,
  options: StreamedGet<A>
): Effect.Effect<StreamedAnswer<A>, OutboundFetchFailed> =>
  Effect.scoped(
    Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      const { req, res, url } = yield* follow(target, options).pipe(
        Effect.timeoutFail({
          duration: options.timeoutMs,
          onTimeout: () => fail(`it did not answer within ${options.timeoutMs / 1000} s`)
        })
      )
      const head: AnswerHead = { status: res.statusCode ?? 0, headers: res.headers, url: url.href }
      const reader = options.readerFor(head)
      if (reader === undefined) {
        req.destroy()
        return { head, end: "unread" as const, read: undefined, bytesRead: 0, problem: null }
      }
      const progress: Progress = { bytes: 0 }
      const left = Math.max(0, started + options.timeoutMs - (yield* Clock.currentTimeMillis))
      const { end, problem } = yield* readBody(req, res, reader, options.maxBytes, progress).pipe(
        Effect.timeoutTo({
          duration: left,
          onSuccess: (ended) => ended,
          onTimeout: () => ({
            end: "timed out" as const,
            problem: `its body did not arrive in full within ${options.timeoutMs / 1000} s`
          })
        })
      )
      return { head, end, read: reader.end(), bytesRead: progress.bytes, problem }
    })
  )
