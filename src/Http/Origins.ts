import type { BrowserOrigins } from "../Config.js"

const loopbackHosts = ["localhost", "127.0.0.1", "[::1]"]

/**
 * The browser origins of this service's own pages, from its public base URL (`Origin` headers are compared with
 * these). A loopback base URL also admits the other loopback names on its port: a browser on the same machine may
 * use any of them.
 */
export const ownOrigins = (base: string): ReadonlyArray<string> => {
  const url = new URL(base)
  return ownHosts(base).map((host) => `${url.protocol}//${host}`)
}

/** The `Host` values this service answers to (a request naming another host is a DNS-rebinding attempt). */
export const ownHosts = (base: string): ReadonlyArray<string> => {
  const url = new URL(base)
  const port = url.port === "" ? "" : `:${url.port}`
  return loopbackHosts.includes(url.hostname) ? loopbackHosts.map((host) => `${host}${port}`) : [url.host]
}

/**
 * Whether a page of `origin` may call the service with a token: its own pages, and the web origins
 * `MCP_ALLOWED_ORIGINS` names (any, with `*`).
 */
export const originAllowed = (base: string, browser: BrowserOrigins) => {
  const own = ownOrigins(base)
  return (origin: string) =>
    own.includes(origin) || browser._tag === "Any" || (browser._tag === "Listed" && browser.origins.includes(origin))
}
