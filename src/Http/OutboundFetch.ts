import type { LookupAddress } from "node:dns"
import { type ClientRequest, request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http"
import { request as httpsRequest } from "node:https"
import { Context, Effect } from "effect"
import { addressesOf, allLoopback, outboundFailed as fail, type OutboundFetchFailed } from "./OutboundAddress.js"

/**
 * Every fetch the service makes on a customer's word (a client's metadata document, by the URL it gave as its client
 * id; a webhook delivery, to the URL of an endpoint; a backlink's page, for a link check) is guarded against
 * server-side request forgery: HTTPS only (a web page may be http too: see `Schemes`); every address the name
 * resolves to must be a public one (no private, loopback, link-local, unique-local, multicast or reserved address),
 * and the connection goes to the address that was checked, so the name cannot be re-pointed between the check and the
 * connection; each redirect is checked again (a POST follows none); the answer is bounded in size and time. The
 * development setting (OUTBOUND_ALLOW_LOOPBACK) adds loopback addresses, over http too. A page read as it arrives
 * (a link check's) is fetched by `OutboundStream`, on the same guard.
 */

/**
 * What a guarded fetch may reach besides public addresses: trusted hosts and certificate authorities for tests only;
 * loopback addresses with OUTBOUND_ALLOW_LOOPBACK (`cbs serve` provides it from the configuration).
 */
export interface OutboundAddressPolicy {
  /** Host names (as in the URL) whose addresses are not checked. */
  readonly trustedHosts: ReadonlySet<string>
  /** Extra certificate authorities (PEM) to trust, for a test server's certificate. */
  readonly ca: string | undefined
  /**
   * Development and tests (OUTBOUND_ALLOW_LOOPBACK): loopback addresses may be reached too, and over http. Never
   * any other private address.
   */
  readonly allowLoopback?: boolean | undefined
}

export class OutboundPolicy extends Context.Reference<OutboundPolicy>()("Http/OutboundPolicy", {
  defaultValue: (): OutboundAddressPolicy => ({ trustedHosts: new Set(), ca: undefined })
}) {}

export interface OutboundLimits {
  readonly maxBytes: number
  readonly timeoutMs: number
  readonly maxRedirects: number
}

export interface OutboundAnswer {
  readonly status: number
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  /** The URL that answered, after redirects. */
  readonly url: string
}

/** Whether the guard lets a fetch use `url`'s scheme under `policy`: https, or http where loopback is allowed. */
const schemeAllowed = (url: URL, policy: OutboundAddressPolicy): boolean =>
  url.protocol === "https:" || (url.protocol === "http:" && policy.allowLoopback === true)

/**
 * A request to `url` whose connection goes to `address`, the one that was checked, whatever the name resolves to by
 * now; the policy's test certificate authority trusted, if it has one. It is sent when the caller ends it.
 */
export const requestTo = (
  url: URL,
  address: LookupAddress,
  policy: OutboundAddressPolicy,
  options: RequestOptions,
  onResponse?: (res: IncomingMessage) => void
): ClientRequest =>
  (url.protocol === "http:" ? httpRequest : httpsRequest)(
    url,
    {
      ...options,
      lookup: (_host, lookupOptions, callback) => {
        if ((lookupOptions as { all?: boolean }).all === true) callback(null, [address] as never, undefined as never)
        else callback(null, address.address, address.family)
      },
      ...(policy.ca === undefined ? {} : { ca: policy.ca })
    },
    onResponse
  )

/** Why a request got no answer, from its connection's error. */
export const connectionFailed = (error: NodeJS.ErrnoException) =>
  fail(
    error.code?.startsWith("ERR_TLS") === true || /certificate/i.test(error.message)
      ? "its HTTPS certificate is not valid"
      : `it could not be reached (${error.code ?? "connection error"})`
  )

/** What one request sends, and how much of the answer it reads. */
interface Sent {
  readonly method: "GET" | "POST"
  readonly headers: Record<string, string>
  readonly body?: string | undefined
  readonly maxBytes: number
  /** `fail`: an answer over maxBytes is a failure; `cut`: only its first maxBytes are read, the rest never. */
  readonly overflow: "fail" | "cut"
}

/** One request to the checked `address`; redirects are returned, not followed. */
const sendOnce = (url: URL, address: LookupAddress, policy: OutboundAddressPolicy, sent: Sent) =>
  Effect.async<OutboundAnswer, OutboundFetchFailed>((resume, signal) => {
    let done = false
    const finish = (effect: Effect.Effect<OutboundAnswer, OutboundFetchFailed>) => {
      if (done) return
      done = true
      resume(effect)
    }
    const req = requestTo(
      url,
      address,
      policy,
      { method: sent.method, headers: { "user-agent": "content-backlink-service", ...sent.headers }, signal },
      (res) => {
        const chunks: Array<Buffer> = []
        let size = 0
        // A cut answer may end in the first bytes of a character: those are left out (a streaming decoder keeps them
        // for a next call that never comes), so the text is whole characters within maxBytes.
        const answer = () => ({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: new TextDecoder("utf-8").decode(Buffer.concat(chunks), { stream: true }),
          url: url.href
        })
        res.on("data", (chunk: Buffer) => {
          if (done) return
          const room = sent.maxBytes - size
          size += chunk.length
          if (size <= sent.maxBytes) {
            chunks.push(chunk)
            return
          }
          req.destroy()
          if (sent.overflow === "fail") finish(Effect.fail(fail(`the answer is larger than ${sent.maxBytes} bytes`)))
          else {
            chunks.push(chunk.subarray(0, room))
            finish(Effect.succeed(answer()))
          }
        })
        res.on("end", () => finish(Effect.succeed(answer())))
        res.on("error", () => finish(Effect.fail(fail("the connection broke off"))))
      }
    )
    req.on("error", (error: NodeJS.ErrnoException) => finish(Effect.fail(connectionFailed(error))))
    req.end(sent.body)
  })

/**
 * Which schemes a fetch may use: `https` (what a customer's service is expected to speak: its client metadata
 * document, its webhook receiver; plain http only to loopback, where allowed), or `web` (a web page, which may still
 * be served over plain http: http or https alike, to the same addresses).
 */
export type Schemes = "https" | "web"

/** The checked address to connect to for `url`, after its scheme is checked. */
export const addressFor = (url: URL, policy: OutboundAddressPolicy, schemes: Schemes = "https") =>
  Effect.gen(function* () {
    if (schemes === "web" && url.protocol !== "http:" && url.protocol !== "https:") {
      return yield* fail("the address is not an http:// or https:// URL")
    }
    if (schemes === "https" && !schemeAllowed(url, policy)) return yield* fail("the address is not an https:// URL")
    const addresses = yield* addressesOf(url.hostname, policy.trustedHosts.has(url.hostname), {
      loopback: policy.allowLoopback === true
    })
    // Plain http only stays on this machine: the development setting never sends it over a network.
    if (schemes === "https" && url.protocol === "http:" && !allLoopback(addresses)) {
      return yield* fail(
        "the address is not an https:// URL (http is allowed only to this machine's loopback addresses)"
      )
    }
    return addresses[0]!
  })

const withinTimeout = (timeoutMs: number) =>
  Effect.timeoutFail({
    duration: timeoutMs,
    onTimeout: () => fail(`it did not answer within ${timeoutMs / 1000} s`)
  })

/**
 * POSTs `body` to `target` under the guard, once: HTTPS (http to loopback where allowed), public addresses only, no
 * redirect followed (a redirect is the answer), within `timeoutMs` in all; only the first `maxBytes` of the answer
 * are read.
 */
export const guardedPost = (
  target: string,
  body: string,
  headers: Record<string, string>,
  limits: { readonly maxBytes: number; readonly timeoutMs: number }
) =>
  Effect.gen(function* () {
    const policy = yield* OutboundPolicy
    if (!URL.canParse(target)) return yield* fail("the address is not a URL")
    const url = new URL(target)
    const address = yield* addressFor(url, policy)
    return yield* sendOnce(url, address, policy, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      maxBytes: limits.maxBytes,
      overflow: "cut"
    })
  }).pipe(withinTimeout(limits.timeoutMs))

/**
 * GETs `target` under the guard: HTTPS, public addresses only (each redirect checked again), at most
 * `limits.maxBytes`, within `limits.timeoutMs` in all.
 */
export const guardedGet = (target: string, limits: OutboundLimits) =>
  Effect.gen(function* () {
    const policy = yield* OutboundPolicy
    let url = URL.canParse(target) ? new URL(target) : undefined
    for (let redirects = 0; ; redirects++) {
      if (url === undefined) return yield* fail("the address is not a URL")
      const address = yield* addressFor(url, policy)
      const answer = yield* sendOnce(url, address, policy, {
        method: "GET",
        headers: { accept: "application/json" },
        maxBytes: limits.maxBytes,
        overflow: "fail"
      })
      const location = answer.headers.location
      if (answer.status < 300 || answer.status >= 400 || location === undefined) return answer
      if (redirects >= limits.maxRedirects) return yield* fail(`it redirects more than ${limits.maxRedirects} times`)
      url = URL.canParse(location, url) ? new URL(location, url) : undefined
    }
  }).pipe(withinTimeout(limits.timeoutMs))
