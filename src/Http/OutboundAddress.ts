import type { LookupAddress } from "node:dns"
import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import { Data, Effect } from "effect"
import ipaddr from "ipaddr.js"

/**
 * Which addresses an outbound fetch may reach (the guard of `OutboundFetch.ts`): every address a name resolves to is
 * judged, and only public ones pass; loopback ones too in development (OUTBOUND_ALLOW_LOOPBACK).
 */

/** Why a guarded fetch did not get an answer, in words for the person or client who gave the URL. */
export class OutboundFetchFailed extends Data.TaggedError("OutboundFetchFailed")<{ readonly message: string }> {}

/** A failure of the guard or of the fetch, in the words `message` gives. */
export const outboundFailed = (message: string) => new OutboundFetchFailed({ message })

const fail = outboundFailed

/**
 * The address an address is judged as: an IPv4-mapped one (`::ffff:0:0/96`, which `ipaddr.process` turns into IPv4)
 * and an IPv4-compatible one (`::/96`, deprecated by RFC 4291 §2.5.5.1 but still routed to its IPv4 address by some
 * systems) are the IPv4 address they carry, so `::7f00:1` is the loopback 127.0.0.1. `::` and `::1` become 0.0.0.0
 * and 0.0.0.1, which are no more public than they were.
 */
const judgedAs = (address: string): ipaddr.IPv4 | ipaddr.IPv6 => {
  const parsed = ipaddr.process(address)
  if (parsed.kind() === "ipv4") return parsed
  const parts = (parsed as ipaddr.IPv6).parts
  if (parts.slice(0, 6).some((part) => part !== 0)) return parsed
  const [high = 0, low = 0] = parts.slice(6)
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
}

/** Whether an address is one anybody on the internet can reach: IPv4 or IPv6 unicast, nothing special. */
export const isPublicAddress = (address: string): boolean =>
  ipaddr.isValid(address) && judgedAs(address).range() === "unicast"

/** Whether an address is a loopback one (127.0.0.0/8, ::1, and IPv4 loopback carried in IPv6). */
const isLoopbackAddress = (address: string): boolean =>
  ipaddr.isValid(address) && (judgedAs(address).range() === "loopback" || ipaddr.parse(address).range() === "loopback")

/** What a fetch may reach: public addresses; with `loopback` (development and tests), this machine's own too. */
export interface Reach {
  readonly loopback: boolean
}

const reachable = (address: string, reach: Reach) =>
  isPublicAddress(address) || (reach.loopback && isLoopbackAddress(address))

/**
 * The addresses to connect to for `host`, each checked (none when `trusted`); an IP literal is checked as it is.
 */
export const addressesOf = (
  host: string,
  trusted: boolean,
  reach: Reach = { loopback: false }
): Effect.Effect<ReadonlyArray<LookupAddress>, OutboundFetchFailed> =>
  Effect.gen(function* () {
    const literal = host.startsWith("[") ? host.slice(1, -1) : host
    const found: ReadonlyArray<LookupAddress> =
      isIP(literal) !== 0
        ? [{ address: literal, family: isIP(literal) }]
        : yield* Effect.tryPromise({
            try: () => lookup(literal, { all: true, verbatim: true }),
            catch: () => fail(`the name ${literal} could not be resolved`)
          })
    if (found.length === 0) return yield* fail(`the name ${literal} could not be resolved`)
    const refused = trusted ? undefined : found.find((entry) => !reachable(entry.address, reach))
    if (refused !== undefined) {
      const never = reach.loopback ? "private, link-local or reserved" : "private, loopback, link-local or reserved"
      const which = literal === refused.address ? `${literal} is` : `${literal} leads to ${refused.address}, which is`
      return yield* fail(`${which} not a public internet address (${never} addresses are never fetched)`)
    }
    return found
  })

/**
 * The outbound rule for an address given to be fetched later (a webhook endpoint's, say), checked when it is given:
 * the host must resolve, and only to addresses a fetch may reach (see `Reach`). The addresses, when it passes; the
 * fetch checks them again when it is made, since a name can be re-pointed.
 */
export const checkOutboundHost = (host: string, reach: Reach) => addressesOf(host, false, reach)

/** Whether every one of `addresses` is a loopback address (so plain http stays on this machine). */
export const allLoopback = (addresses: ReadonlyArray<LookupAddress>) =>
  addresses.every((entry) => isLoopbackAddress(entry.address))
