import type { HttpApiBuilder } from "@effect/platform"
import { Chunk, Effect } from "effect"
import * as FindMyWay from "find-my-way-ts"
import { html, htmlResponse, page } from "../Ui/Html.js"

/**
 * How addresses are matched, here and by the server's router: exactly (`/API/V1/...` and `/api/v1//articles/1` name no
 * route; a trailing slash is still forgiven).
 */
export const ROUTER_CONFIG = { caseSensitive: true, ignoreDuplicateSlashes: false } as const

/**
 * The methods the service answers (on some route). Any other (TRACE, PROPFIND, …, and CONNECT, see StartupGate.ts) is
 * 405 `method_not_allowed` with these in `Allow` (see Pipeline.ts).
 */
export const SERVED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const

/**
 * The first segment of every address that answers JSON, as programs call it: the API, MCP, the OAuth endpoints and
 * documents, the health checks, and the images the API hands out (`/media/…`, whose every other miss is a JSON 404).
 * Everything else is the web pages, read by people in a browser.
 */
const JSON_SEGMENTS: ReadonlySet<string> = new Set([
  "api",
  "media",
  "mcp",
  ".well-known",
  "register",
  "token",
  "revoke",
  "authorize",
  "healthz",
  "readyz"
])

/** Whether an address that names no route is answered with the JSON `Error` body rather than an HTML page (`/API/…` too). */
export const answersJson = (path: string) => JSON_SEGMENTS.has((path.split("/")[1] ?? "").toLowerCase())

const wayBack = html`<p><a href="/sites">Go to your websites</a>, or <a href="/signin">sign in</a> first.</p>`

/** 404 for an address under the pages that names nothing: a page with a way back, never JSON. */
export const pageNotFound = () =>
  htmlResponse(
    page(
      "Page not found",
      html`<h1>Page not found</h1><p role="alert">There is no page at this address.</p>${wayBack}`
    ),
    {
      status: 404
    }
  )

/**
 * 405 for an address under the pages that does not take the request's method, with the ones it takes in `Allow`. An
 * address that only receives a form (POST) says so: it is what a person meets who reopens or reloads it.
 */
export const pageMethodNotAllowed = (method: string, allowed: ReadonlyArray<string>) => {
  const formOnly = method === "GET" && allowed.length > 0 && allowed.every((m) => m === "POST")
  const message = formOnly
    ? "This address receives a form sent from a page; it cannot be opened on its own. Nothing was changed."
    : `This address does not take ${method}; it takes ${allowed.join(", ")}. Nothing was changed.`
  return htmlResponse(
    page(
      "Cannot be opened this way",
      html`<h1>Cannot be opened this way</h1><p role="alert">${message}</p>${formOnly ? html`<p>Go back to the page the form was on and send it from there.</p>` : null}${wayBack}`
    ),
    { status: 405, headers: { allow: allowed.join(", ") } }
  )
}

/** The server's router, whose routes tell what an address takes. */
export type Router = HttpApiBuilder.Router["Type"]

type Routes = Effect.Effect.Success<Router["router"]>["routes"]

/** Each set of routes' matcher, built at its first miss: the routes do not change once the server runs. */
const matchers = new WeakMap<Routes, FindMyWay.Router<true>>()

const matcherOf = (routes: Routes) => {
  const known = matchers.get(routes)
  if (known !== undefined) return known
  const matcher = FindMyWay.make<true>(ROUTER_CONFIG)
  Chunk.forEach(routes, (route) => {
    if (route.method === "*") matcher.all(route.path, true)
    else matcher.on(route.method, route.path, true)
  })
  matchers.set(routes, matcher)
  return matcher
}

/**
 * The methods the service's routes take at a path (HEAD wherever GET is, as the router answers it), read from the
 * router itself and matched as it matches them.
 */
export const methodsAt = (router: Router, path: string) =>
  Effect.map(router.router, ({ routes }) => {
    const matcher = matcherOf(routes)
    const takes = (method: string) => matcher.find(method, path) !== undefined
    return SERVED_METHODS.filter((m) => takes(m) || (m === "HEAD" && takes("GET")))
  })
