const MAX_LENGTH = 8000
/** A stand-in origin to resolve paths against; only paths that stay on it are kept. */
const HERE = "http://return-to.invalid"

const isPath = (value: string) =>
  value.length <= MAX_LENGTH && value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\")

/**
 * Where to go after signing in: only a path on this site (never `//host` or an absolute URL), in the form a
 * `Location` header can carry. The URL parser resolves `..` segments and percent-encodes everything outside ASCII
 * (as UTF-8): `/sites/€` becomes `/sites/%E2%82%AC`, which the browser shows as `/sites/€` again.
 */
export const safeReturnTo = (value: string | undefined): string | undefined => {
  if (value === undefined || !isPath(value) || /[\p{Cc}\\]/u.test(value)) return undefined
  const url = new URL(value, HERE)
  const path = `${url.pathname}${url.search}${url.hash}`
  // Resolving `/a/../..//host` gives `//host`: checked again after parsing.
  return url.origin === HERE && isPath(path) && /^[\x21-\x7e]+$/.test(path) ? path : undefined
}

/** `/signin?return_to=…` for a path on this site. */
export const signInUrl = (returnTo: string | undefined) =>
  returnTo === undefined ? "/signin" : `/signin?return_to=${encodeURIComponent(returnTo)}`
