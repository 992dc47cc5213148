import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect } from "effect"

// scrypt is memory-hard: N=2^15, r=8 uses 32 MiB per hash.
const N = 2 ** 15
const r = 8
const p = 1
const KEY_LENGTH = 32
const maxmem = 64 * 1024 * 1024

const derive = (password: string, salt: Buffer, n: number, rr: number, pp: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password, salt, KEY_LENGTH, { N: n, r: rr, p: pp, maxmem }, (error, key) =>
      error === null ? resume(Effect.succeed(key)) : resume(Effect.die(error))
    )
  })

/** `scrypt$N$r$p$salt$hash`, base64url parts. */
export const hashPassword = (password: string): Effect.Effect<string> => {
  const salt = randomBytes(16)
  return Effect.map(
    derive(password, salt, N, r, p),
    (key) => `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`
  )
}

/** Whether `password` matches a stored hash; compares in constant time. */
export const verifyPassword = (password: string, stored: string): Effect.Effect<boolean> => {
  const [scheme, n, rr, pp, salt, hash] = stored.split("$")
  if (scheme !== "scrypt" || salt === undefined || hash === undefined) return Effect.succeed(false)
  const expected = Buffer.from(hash, "base64url")
  return Effect.map(
    derive(password, Buffer.from(salt, "base64url"), Number(n), Number(rr), Number(pp)),
    (key) => key.length === expected.length && timingSafeEqual(key, expected)
  )
}
