/** Where to go after signing in: only a path on this site (never `//host` or an absolute URL). */
export const safeReturnTo = (value: string | undefined): string | undefined =>
  value !== undefined &&
  value.length <= 8000 &&
  value.startsWith("/") &&
  !value.startsWith("//") &&
  !value.startsWith("/\\") &&
  !/[\p{Cc}\\]/u.test(value)
    ? value
    : undefined

/** `/signin?return_to=…` for a path on this site. */
export const signInUrl = (returnTo: string | undefined) =>
  returnTo === undefined ? "/signin" : `/signin?return_to=${encodeURIComponent(returnTo)}`
