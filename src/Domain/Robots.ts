/**
 * Whether a page asks search engines not to index it, from its robots directives: a `<meta name="robots">` (or
 * `googlebot`) tag's content, or the `X-Robots-Tag` header. `noindex` and `none` (which means `noindex, nofollow`)
 * both say so; names and directives are read in any case.
 */

/** The `<meta name>` values whose directives apply to the search engines this service reports on. */
const ROBOT_NAMES = new Set(["robots", "googlebot"])

const NOINDEX = new Set(["noindex", "none"])

/** Directives written `name: value`, which the header must not mistake for a user-agent prefix. */
const VALUED_DIRECTIVES = new Set(["unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"])

/** A user agent's name: one word (a date's time, `15:00:00`, is not one). */
const AGENT = /^[a-z][\w-]*$/

/** Whether a `<meta name=…>` tag carries robots directives read here (`robots`, `googlebot`). */
export const isRobotsMetaName = (name: string): boolean => ROBOT_NAMES.has(name.trim().toLowerCase())

/** Whether the content of a robots `<meta>` tag says `noindex` (or `none`), e.g. `"NoIndex, follow"`. */
export const metaSaysNoindex = (content: string): boolean =>
  content.split(",").some((directive) => NOINDEX.has(directive.trim().toLowerCase()))

/**
 * Whether an `X-Robots-Tag` header value says `noindex` to every crawler or to Googlebot. Several header lines come
 * joined by commas. A directive may be prefixed by a user agent (`otherbot: noindex, nofollow`): that agent applies
 * to it and to the directives after it, until the next prefix; directives before any prefix apply to all.
 */
export const headerSaysNoindex = (value: string): boolean => {
  let agent = "*"
  for (const part of value.split(",")) {
    let directive = part.trim().toLowerCase()
    const colon = directive.indexOf(":")
    if (colon !== -1) {
      const prefix = directive.slice(0, colon).trim()
      if (AGENT.test(prefix) && !VALUED_DIRECTIVES.has(prefix)) {
        agent = prefix
        directive = directive.slice(colon + 1).trim()
      }
    }
    if ((agent === "*" || ROBOT_NAMES.has(agent)) && NOINDEX.has(directive)) return true
  }
  return false
}
