import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

/** A new secret: a recognisable prefix and 256 random bits, URL-safe. */
export const newSecret = (prefix: string): string => `${prefix}${randomBytes(32).toString("base64url")}`

/** SHA-256 of a high-entropy secret; what is stored instead of the secret. */
export const hashSecret = (secret: string): Uint8Array => createHash("sha256").update(secret, "utf8").digest()

/** Compares two hashes in constant time. */
export const sameHash = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && timingSafeEqual(a, b)
