/**
 * The OAuth scopes of an assistant's connection: `content:read` (the websites, articles, backlinks and statistics)
 * and `content:write` (changing articles). A grant's scope is one of two: read only, or read and edit. `mcp`, the
 * one scope of earlier versions, is taken as both, so connections made before stay as they were.
 */
export const READ_SCOPE = "content:read"
export const WRITE_SCOPE = "content:write"
const LEGACY_SCOPE = "mcp"

export const SCOPES_SUPPORTED = [READ_SCOPE, WRITE_SCOPE] as const

/** The two accesses a person can allow, as the scope a grant keeps. */
export const READ_ONLY = READ_SCOPE
export const READ_AND_EDIT = `${READ_SCOPE} ${WRITE_SCOPE}`

const scopesOf = (scope: string | undefined) => (scope ?? "").split(" ").filter((item) => item !== "")

/** Whether a granted (or requested) scope includes changing articles. */
export const allowsWrite = (scope: string | undefined) =>
  scopesOf(scope).some((item) => item === WRITE_SCOPE || item === LEGACY_SCOPE)

/**
 * The scope an access token is issued with: one of the two accesses, in the published scopes (a legacy `mcp`, or
 * `content:write` alone, is read and edit).
 */
export const tokenScopeOf = (scope: string) => (allowsWrite(scope) ? READ_AND_EDIT : READ_ONLY)

/** Whether every scope of `requested` is within `granted` (a refresh may narrow, never widen). */
export const withinGranted = (requested: string, granted: string) =>
  // `mcp` means both, so it asks for content:write as well.
  !allowsWrite(requested) || allowsWrite(granted)

/** Whether a requested scope is made only of scopes this service knows. */
export const isKnownScope = (scope: string) =>
  scopesOf(scope).every((item) => item === READ_SCOPE || item === WRITE_SCOPE || item === LEGACY_SCOPE)
