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

/** The body's protected links: the stored ones when they were read off this very body, else parsed afresh. */
export const protectedLinksOf = (row: StoredBody): ReadonlyArray<ProtectedLink> =>
  row.protected_links !== null &&
  row.protected_links_sha256 !== null &&
  Buffer.compare(row.protected_links_sha256, bodyDigest(row.body)) === 0
    ? row.protected_links
    : extractProtectedLinks(row.body)
