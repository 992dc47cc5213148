import type { Credential } from "./Credential.js"
import type { AccountId } from "./Ids.js"

/**
 * Whose data a credential may read: `null` for an admin (every account), otherwise its own account.
 * Writes never use this: they always reach only the credential's own account.
 */
export type ReadScope = AccountId | null

export const readScope = (credential: Credential): ReadScope => (credential.isAdmin ? null : credential.accountId)
