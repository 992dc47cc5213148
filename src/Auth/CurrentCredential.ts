import { Context } from "effect"
import type { AccountId } from "../Domain/Ids.js"

/** Who is making the request: an API key, or (through MCP and the web pages) a signed-in user. */
export interface Credential {
  readonly kind: "api_key" | "user"
  readonly id: number
  readonly accountId: AccountId
  /** Admin credentials read every account's data; their writes still reach only their own account. */
  readonly isAdmin: boolean
}

export class CurrentCredential extends Context.Tag("Auth/CurrentCredential")<CurrentCredential, Credential>() {}
