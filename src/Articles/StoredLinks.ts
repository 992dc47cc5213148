import { createHash } from "node:crypto"
import type { ProtectedLink } from "../Domain/Article.js"
import { extractProtectedLinks } from "../Html/ProtectedLinks.js"

/** The SHA-256 of a body's UTF-8 bytes: what the database holds of it (lone surrogates read as U+FFFD there too). */
const bodyDigest = (body: string): Uint8Array => createHash("sha256").update(body, "utf8").digest()

/** An article's body with the protected links stored for it (migrations/0005_stored_protected_links.sql). */
export interface StoredBody {
  readonly body: string
  readonly protected_links: ReadonlyArray<ProtectedLink> | null
  readonly protected_links_sha256: Uint8Array | null
}

/** The column values that store `links` as the protected links of `body`. */
export const storedLinks = (body: string, links: ReadonlyArray<ProtectedLink>) => ({
  protected_links: JSON.stringify(links),
  protected_links_sha256: bodyDigest(body)
})

// Whether a row's stored links belong to its body, by row: an edit asks more than once of the row it read.
const digestMatches = new WeakMap<StoredBody, boolean>()

/**
 * The stored protected links when they were stored with this very body, else `undefined`. Only the service
 * stores them, and only with a body the sanitiser wrote: a body they belong to is canonical (one changed by hand
 * in the database is not trusted, whatever it holds).
 */
export const trustedLinksOf = (row: StoredBody): ReadonlyArray<ProtectedLink> | undefined => {
  if (row.protected_links === null || row.protected_links_sha256 === null) return undefined
  let matches = digestMatches.get(row)
  if (matches === undefined) {
    matches = Buffer.compare(row.protected_links_sha256, bodyDigest(row.body)) === 0
    digestMatches.set(row, matches)
  }
  return matches ? row.protected_links : undefined
}

/** The body's protected links: the stored ones when they were read off this very body, else parsed afresh. */
export const protectedLinksOf = (row: StoredBody): ReadonlyArray<ProtectedLink> =>
  trustedLinksOf(row) ?? extractProtectedLinks(row.body)
