import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** What a page of another origin may do at an endpoint: the methods, the headers it may send, those it may read. */
export interface CorsRules {
  readonly methods: ReadonlyArray<string>
  readonly requestHeaders: ReadonlyArray<string>
  readonly exposedHeaders: ReadonlyArray<string>
}

/**
 * Which origins an endpoint answers across origins: any, with `*` (public documents and endpoints that take no
 * cookie), or those `allows` names, each answered with its own origin and `Vary: Origin`.
 */
export type CorsGrant =
  | { readonly _tag: "Anyone" }
  | { readonly _tag: "Origins"; readonly allows: (origin: string) => boolean }

const MAX_AGE = "86400"

/** The headers of every answer to a request from `origin`: who may read it, and what of it. */
const answerHeaders = (grant: CorsGrant, rules: CorsRules, origin: string | undefined): Record<string, string> => {
  const exposed =
    rules.exposedHeaders.length === 0 ? {} : { "access-control-expose-headers": rules.exposedHeaders.join(", ") }
  if (grant._tag === "Anyone") return { "access-control-allow-origin": "*", ...exposed }
  if (origin === undefined || !grant.allows(origin)) return { vary: "Origin" }
  return { "access-control-allow-origin": origin, vary: "Origin", ...exposed }
}

/** What a preflight from a granted origin is told it may send. */
const preflightHeaders = (rules: CorsRules): Record<string, string> => ({
  "access-control-allow-methods": rules.methods.join(", "),
  "access-control-allow-headers": rules.requestHeaders.join(", "),
  "access-control-max-age": MAX_AGE
})

/** `handler`'s answer with the CORS headers its request's origin is granted (none for an origin that is not). */
export const withCors =
  (grant: CorsGrant, rules: CorsRules) =>
  <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.map(handler, (response) =>
        HttpServerResponse.setHeaders(response, answerHeaders(grant, rules, request.headers["origin"]))
      )
    )

/**
 * The answer to `OPTIONS`: a preflight from a granted origin is 204 with what it may send; one from another origin is
 * 403 with no CORS header (nothing is granted). Where origins are named, an `OPTIONS` that is no preflight (no
 * `Origin`) is 204 with `Allow`.
 */
export const preflight = (grant: CorsGrant, rules: CorsRules) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const origin = request.headers["origin"]
    if (origin === undefined && grant._tag === "Origins") {
      return HttpServerResponse.empty({ status: 204, headers: { allow: [...rules.methods, "OPTIONS"].join(", ") } })
    }
    const granted = grant._tag === "Anyone" || (origin !== undefined && grant.allows(origin))
    return granted
      ? HttpServerResponse.empty({
          status: 204,
          headers: { ...answerHeaders(grant, rules, origin), ...preflightHeaders(rules) }
        })
      : HttpServerResponse.empty({ status: 403, headers: { vary: "Origin" } })
  })
