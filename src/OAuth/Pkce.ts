import { createHash, timingSafeEqual } from "node:crypto"

/** An S256 code challenge: BASE64URL(SHA-256(verifier)), always 43 characters without padding. */
const challengePattern = /^[A-Za-z0-9_-]{43}$/
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const verifierPattern = /^[A-Za-z0-9\-._~]{43,128}$/

export const isS256Challenge = (challenge: string): boolean => challengePattern.test(challenge)

export const isVerifier = (verifier: string): boolean => verifierPattern.test(verifier)

/** The S256 challenge of a verifier. */
export const s256 = (verifier: string): string => createHash("sha256").update(verifier, "ascii").digest("base64url")

/** Whether `verifier` is well formed and hashes to `challenge`; compares in constant time. */
export const verifierMatches = (verifier: string, challenge: string): boolean => {
  if (!isVerifier(verifier) || !isS256Challenge(challenge)) return false
  const actual = Buffer.from(s256(verifier))
  const expected = Buffer.from(challenge)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
