/**
 * Redirect URIs as real MCP clients register them: https, http on a loopback address (any port: native apps pick
 * one at run time, RFC 8252 §7.3) and private-use schemes (`cursor://…`, `vscode://…`, RFC 8252 §7.1).
 */

const MAX_LENGTH = 2000

/** Schemes that run code, read local data or are otherwise never a place to send an authorization code. */
const refusedSchemes = new Set([
  "javascript:",
  "data:",
  "file:",
  "vbscript:",
  "blob:",
  "about:",
  "filesystem:",
  "view-source:",
  "ws:",
  "wss:"
])

const loopbackHosts = new Set(["127.0.0.1", "[::1]", "localhost"])

const schemePattern = /^[a-z][a-z0-9+.-]*:/i

const parse = (uri: string): URL | undefined => {
  try {
    return new URL(uri)
  } catch {
    return undefined
  }
}

const isLoopbackHttp = (url: URL) => url.protocol === "http:" && loopbackHosts.has(url.hostname)

/** Why a redirect URI cannot be registered, or undefined when it can. */
export const redirectUriProblem = (uri: string): string | undefined => {
  if (uri.length === 0 || uri.length > MAX_LENGTH) return `must be 1 to ${MAX_LENGTH} characters`
  if (!schemePattern.test(uri)) return "must be an absolute URI"
  if (uri.includes("#")) return "must not contain a fragment"
  if (/[\s<>"`\\]/.test(uri) || /\p{Cc}/u.test(uri)) return "contains characters not allowed in a URI"
  const url = parse(uri)
  if (url === undefined) return "is not a valid URI"
  if (refusedSchemes.has(url.protocol)) return `the ${url.protocol} scheme is not allowed`
  if (url.username !== "" || url.password !== "") return "must not contain credentials"
  if (url.protocol === "https:") return url.hostname === "" ? "needs a host" : undefined
  if (url.protocol === "http:") {
    return isLoopbackHttp(url) ? undefined : "http is only allowed on a loopback address (127.0.0.1, [::1], localhost)"
  }
  return undefined
}

/**
 * Whether a requested redirect URI is one of the registered ones: exact string match, except that for a loopback
 * http URI the port may differ (RFC 8252 §7.3).
 */
export const matchesRegistered = (registered: ReadonlyArray<string>, requested: string): boolean => {
  if (registered.includes(requested)) return true
  const url = parse(requested)
  if (url === undefined || !isLoopbackHttp(url) || requested.includes("#")) return false
  return registered.some((candidate) => {
    const known = parse(candidate)
    return (
      known !== undefined &&
      isLoopbackHttp(known) &&
      known.hostname === url.hostname &&
      known.pathname === url.pathname &&
      known.search === url.search
    )
  })
}

/**
 * A registered redirect URI as a `Location` header value: as registered when it is plain ASCII, otherwise as the URL
 * parser writes it (path and query percent-encoded as UTF-8, an international host in punycode), so that
 * `https://client.example/€` is sent as `https://client.example/%E2%82%AC`. Undefined when it cannot be written so.
 */
export const redirectLocation = (uri: string): string | undefined => {
  if (/^[\x21-\x7e]+$/.test(uri)) return uri
  const href = parse(uri)?.href
  return href !== undefined && /^[\x21-\x7e]+$/.test(href) ? href : undefined
}

/**
 * The CSP `form-action` source that lets the consent form's redirect reach `uri`: its origin for http(s), its
 * scheme for a private-use scheme (whose URLs have no origin).
 */
export const formActionSource = (uri: string): string => {
  const url = parse(uri)
  if (url === undefined) return ""
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol
}

/** What the consent page names as where the user is sent: the host for http(s), else scheme and host. */
export const redirectHost = (uri: string): string => {
  const url = parse(uri)
  if (url === undefined) return uri
  if (url.protocol === "http:" || url.protocol === "https:") return url.host
  return url.host === "" ? url.protocol : `${url.protocol}//${url.host}`
}
