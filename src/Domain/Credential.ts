import { Schema } from "effect"
import type { AccountId } from "./Ids.js"

/** Who is making a request: an API key, or (through MCP and the web pages) a signed-in user. */
export interface Credential {
  readonly kind: "api_key" | "user"
  readonly id: number
  readonly accountId: AccountId
  /** Admin credentials read every account's data; their writes still reach only their own account. */
  readonly isAdmin: boolean
  /**
   * Whether it may change anything: false for a read-only API key and for an assistant allowed to read only (its
   * grant lacks the `content:write` scope). Its writes are 403 `forbidden`.
   */
  readonly canWrite: boolean
  /** For a signed-in user's MCP token: the assistant (OAuth client) it was granted to, named by the revisions it makes. */
  readonly clientId?: string | undefined
}

/**
 * Why a credential that was presented is refused: no such credential (or not one of ours at all), revoked, or past
 * its expiry. Told to whoever presented it, who holds the secret; it says nothing about whose it is.
 */
export type CredentialRefusal = "unknown" | "revoked" | "expired"

/** The door a call came through, recorded with the call and with the revision a change stores. */
export type CallOrigin = "API" | "MCP"

/** Where a change or a call came from: a door of the API, the editor, or the operators' rewrite and import. */
export const RevisionOrigin = Schema.Literal("API", "MCP", "editor", "rewrite")
export type RevisionOrigin = typeof RevisionOrigin.Type
