/**
 * How a link's address is compared with a backlink's `target_url` (CONTRACT "Link health"): both are parsed as
 * WHATWG URLs (what a browser does with an `href`) and compared after normalising. The parser itself lower-cases the
 * scheme and the host (and turns an international host into its `xn--` form), drops the default port (80 for http,
 * 443 for https) and turns an empty path into `/`; the fragment is then dropped. Nothing else is changed: the query
 * is kept as written (order included), a trailing slash matters (`/page` and `/page/` are different pages; only the
 * empty path equals `/`), `http` and `https` differ, and so do `www.example.com` and `example.com`.
 */

const WEB_SCHEMES = new Set(["http:", "https:"])

const parse = (input: string, base?: string | URL): URL | undefined => {
  try {
    return new URL(input, base)
  } catch {
    return undefined
  }
}

/** The address in its compared form: the URL without its fragment. */
const comparable = (url: URL): string => {
  url.hash = ""
  return url.href
}

/**
 * The normalised form of an absolute http(s) address, or undefined when `input` is not one (relative, another
 * scheme, or not a URL at all). Two addresses are the same link target when their normalised forms are equal.
 */
export const normaliseUrl = (input: string): string | undefined => {
  const url = parse(input)
  return url !== undefined && WEB_SCHEMES.has(url.protocol) ? comparable(url) : undefined
}

/**
 * The base against which a page's relative links resolve: the page's `<base href>` (itself resolved against the
 * page's address) when it gives one, else the page's address. As in a browser, a `<base href>` that does not parse
 * or that is a `data:` or `javascript:` URL is ignored.
 */
export const documentBase = (pageUrl: string, baseHref?: string): URL | undefined => {
  const page = parse(pageUrl)
  if (page === undefined || baseHref === undefined) return page
  const base = parse(baseHref, page)
  return base === undefined || base.protocol === "data:" || base.protocol === "javascript:" ? page : base
}

/**
 * The normalised http(s) address an `href` points to once resolved against `base` (from `documentBase`), or
 * undefined when it points nowhere comparable (`mailto:`, `javascript:`, an unparseable href, …). Whitespace around
 * the href and tabs or newlines inside it are ignored, as browsers do.
 */
export const resolveAgainst = (href: string, base: URL): string | undefined => {
  const url = parse(href, base)
  return url !== undefined && WEB_SCHEMES.has(url.protocol) ? comparable(url) : undefined
}

/** `resolveAgainst` for an `href` written on the page at `pageUrl`, whose `<base href>` (if any) is `baseHref`. */
export const resolveHref = (href: string, pageUrl: string, baseHref?: string): string | undefined => {
  const base = documentBase(pageUrl, baseHref)
  return base === undefined ? undefined : resolveAgainst(href, base)
}

/** Whether two addresses are the same link target once normalised; false when either is not an http(s) address. */
export const sameTarget = (a: string, b: string): boolean => {
  const left = normaliseUrl(a)
  return left !== undefined && left === normaliseUrl(b)
}

/**
 * Whether a fetch that started at `sourceUrl` and ended at `finalUrl` (after redirects) ended on another page. A
 * redirect that only upgrades `http` to `https` on the same address stays on the page (sites do this wholesale);
 * any other difference, trailing slash included, is another page.
 */
export const redirectedAway = (sourceUrl: string, finalUrl: string): boolean => {
  const source = parse(sourceUrl)
  const final = parse(finalUrl)
  if (source === undefined || final === undefined) return true
  if (source.protocol === "http:" && final.protocol === "https:") {
    // The default port changes with the scheme: compare what the address would be on https.
    source.protocol = "https:"
  }
  return comparable(source) !== comparable(final)
}
