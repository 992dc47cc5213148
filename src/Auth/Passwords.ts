import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Context, Effect } from "effect"

/** scrypt's cost parameters. */
export interface ScryptParameters {
  readonly N: number
  readonly r: number
  readonly p: number
}

/**
 * The parameters new password hashes are made with: OWASP's minimum, N=2^17, r=8, p=1 (128 MiB and about a third of a
 * second per hash). A hash keeps the parameters it was made with, so older ones still verify. Only a test run provides
 * cheaper ones (so that suites creating hundreds of users stay fast); no setting of the service can lower them.
 */
export class PasswordHashParameters extends Context.Reference<PasswordHashParameters>()("Auth/PasswordHashParameters", {
  defaultValue: (): ScryptParameters => ({ N: 2 ** 17, r: 8, p: 1 })
}) {}

const KEY_LENGTH = 32
// scrypt needs 128·N·r bytes; Node refuses anything over 32 MiB unless told otherwise.
const maxmem = 256 * 1024 * 1024

const derive = (password: string, salt: Buffer, n: number, rr: number, pp: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password, salt, KEY_LENGTH, { N: n, r: rr, p: pp, maxmem }, (error, key) =>
      error === null ? resume(Effect.succeed(key)) : resume(Effect.die(error))
    )
  })

const prefix = ({ N, r, p }: ScryptParameters) => `scrypt$${N}$${r}$${p}$`

/** `scrypt$N$r$p$salt$hash`, base64url parts. */
export const hashPassword = (password: string): Effect.Effect<string> =>
  Effect.flatMap(PasswordHashParameters, (parameters) => {
    const salt = randomBytes(16)
    return Effect.map(
      derive(password, salt, parameters.N, parameters.r, parameters.p),
      (key) => `${prefix(parameters)}${salt.toString("base64url")}$${key.toString("base64url")}`
    )
  })

/** Whether `password` matches a stored hash, made with whatever parameters it names; compares in constant time. */
export const verifyPassword = (password: string, stored: string): Effect.Effect<boolean> => {
  const [scheme, n, rr, pp, salt, hash] = stored.split("$")
  if (scheme !== "scrypt" || salt === undefined || hash === undefined) return Effect.succeed(false)
  const expected = Buffer.from(hash, "base64url")
  return Effect.map(
    derive(password, Buffer.from(salt, "base64url"), Number(n), Number(rr), Number(pp)),
    (key) => key.length === expected.length && timingSafeEqual(key, expected)
  )
}

/** Whether a stored hash was made with other parameters than new ones are; it is replaced at the next sign-in. */
export const isOutdated = (stored: string): Effect.Effect<boolean> =>
  Effect.map(PasswordHashParameters, (parameters) => !stored.startsWith(prefix(parameters)))

/** The shortest password any door takes. */
export const MIN_PASSWORD_LENGTH = 8
/** The longest: sign-in takes no longer one, so none is ever set that could not be used there. */
export const MAX_PASSWORD_LENGTH = 1024

/**
 * What is wrong with a new password, or undefined when it may be set: the one rule of `cbs account`, `cbs import` and
 * the password reset page.
 */
export const passwordProblem = (password: string): string | undefined => {
  if (password.length < MIN_PASSWORD_LENGTH) return `the password must be at least ${MIN_PASSWORD_LENGTH} characters`
  if (password.length > MAX_PASSWORD_LENGTH) return `the password must be at most ${MAX_PASSWORD_LENGTH} characters`
  return undefined
}
