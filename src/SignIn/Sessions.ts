import type { HttpServerRequest } from "@effect/platform"
import { Clock, Data, Effect, Option } from "effect"
import { PasswordChecks } from "../Auth/PasswordChecks.js"
import { hashPassword, isOutdated, verifyPassword } from "../Auth/Passwords.js"
import { hashSecret, newSecret } from "../Auth/Secrets.js"
import { SESSION_COOKIE, SESSION_SECONDS } from "./Cookies.js"
import { SessionsRepo, type SessionUser } from "./SessionsRepo.js"
import { SignInThrottle } from "./Throttle.js"

const SESSION_PREFIX = "cbs_s_"

const iso = (ms: number) => new Date(ms).toISOString()

/** A live session: its secret (the cookie's value) and the signed-in user. */
export interface Session {
  readonly token: string
  readonly user: SessionUser
}

/** Why a sign-in was refused. */
export class SignInRefused extends Data.TaggedError("SignInRefused")<{
  readonly reason: "invalid_credentials" | "throttled"
}> {}

/** Server-side sessions of the sign-in page, shared by every instance through the database. */
export class Sessions extends Effect.Service<Sessions>()("SignIn/Sessions", {
  dependencies: [SessionsRepo.Default, SignInThrottle.Default],
  effect: Effect.gen(function* () {
    const repo = yield* SessionsRepo
    const throttle = yield* SignInThrottle
    const checks = yield* PasswordChecks
    // Unknown e-mails are checked against this too, so that the answer takes as long as for a known one.
    const decoyHash = yield* Effect.cached(hashPassword("not a password of anyone"))

    /** The session a request's cookie names, if it is live. */
    const current = Effect.fn("Sessions.current")(function* (request: HttpServerRequest.HttpServerRequest) {
      const token = request.cookies[SESSION_COOKIE]
      if (token === undefined || !token.startsWith(SESSION_PREFIX) || token.length > 200) {
        return Option.none<Session>()
      }
      const now = yield* Clock.currentTimeMillis
      const user = yield* repo.findSession(hashSecret(token), iso(now))
      return Option.map(user, (u): Session => ({ token, user: u }))
    })

    /**
     * Checks an e-mail and password and opens a session. The password is checked only with slots of the throttle
     * (taken first); without them the attempt is refused, even with the right password, until the window has passed.
     * A right password stored under older hash parameters is hashed again with the current ones. The password work
     * takes its turn among the service's password checks (see `PasswordChecks`): when too many wait already, the
     * attempt fails with 503 `unavailable`, its slots given back (nothing was checked).
     */
    const signIn = Effect.fn("Sessions.signIn")(function* (attempt: {
      readonly email: string
      readonly password: string
      readonly ip: string | null
    }) {
      const email = attempt.email.trim().toLowerCase()
      const slots = yield* throttle.take({ email, ip: attempt.ip })
      if (Option.isNone(slots)) return yield* new SignInRefused({ reason: "throttled" })
      const user = yield* repo.findUserByEmail(email)
      const stored = Option.flatMap(user, (u) => Option.fromNullable(u.password_hash))
      const matches = yield* checks
        .run(
          Effect.gen(function* () {
            if (Option.isSome(stored)) return yield* verifyPassword(attempt.password, stored.value)
            yield* Effect.flatMap(decoyHash, (hash) => verifyPassword(attempt.password, hash))
            return false
          })
        )
        .pipe(Effect.tapError(() => throttle.giveBack(slots.value)))
      if (Option.isNone(user) || Option.isNone(stored) || !matches) {
        return yield* new SignInRefused({ reason: "invalid_credentials" })
      }
      yield* throttle.giveBack(slots.value)
      if (yield* isOutdated(stored.value)) {
        // Done at a later sign-in when the checks are busy now: the stored hash still verifies meanwhile.
        yield* checks.run(hashPassword(attempt.password)).pipe(
          Effect.flatMap((upgraded) =>
            repo.replacePasswordHash({ user_id: user.value.id, previous: stored.value, next: upgraded })
          ),
          Effect.catchTag("Unavailable", () => Effect.void)
        )
      }
      const now = yield* Clock.currentTimeMillis
      yield* repo.pruneSessions(iso(now))
      const token = newSecret(SESSION_PREFIX)
      yield* repo.insertSession({
        id_hash: hashSecret(token),
        user_id: user.value.id,
        created_at: iso(now),
        expires_at: iso(now + SESSION_SECONDS * 1000)
      })
      return token
    })

    const signOut = (token: string) => repo.deleteSession(hashSecret(token))

    return { current, signIn, signOut }
  })
}) {}
