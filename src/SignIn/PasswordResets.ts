import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Clock, Data, Effect, Option, Queue } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { PasswordChecks } from "../Auth/PasswordChecks.js"
import { hashPassword, passwordProblem } from "../Auth/Passwords.js"
import { hashSecret, sameHash } from "../Auth/Secrets.js"
import { PublicUrl } from "../Http/PublicUrl.js"
import { Mailer } from "../Mail/Mailer.js"
import { resetMail } from "./ResetMail.js"
import { ResetsRepo } from "./ResetsRepo.js"
import { SignInThrottle } from "./Throttle.js"

/** How long a reset link works. */
export const RESET_MINUTES = 30
/** Reset mails waiting to be sent; past them a request is dropped (and logged), never held. */
const WAITING_MAILS = 1000

/** `cbs_r_` + a selector (128 bits, stored as it is) + `.` + a verifier (256 bits, stored hashed). */
const TOKEN = /^cbs_r_([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/

const iso = (ms: number) => new Date(ms).toISOString()

/** Why a reset link does not work: not one of ours (or mistyped), past its 30 minutes, or used already. */
export class ResetLinkRefused extends Data.TaggedError("ResetLinkRefused")<{
  readonly reason: "unknown" | "expired" | "used"
}> {}

/** The new password breaks the password rule. */
export class NewPasswordRefused extends Data.TaggedError("NewPasswordRefused")<{ readonly problem: string }> {}

/** Too many reset mails asked for, for this e-mail or from this address, within the throttle's window. */
export class ResetThrottled extends Data.TaggedError("ResetThrottled") {}

/** A request for a reset mail, queued: the e-mail as typed (lower-cased) and when it was made. */
interface MailRequest {
  readonly email: string
  readonly at: number
}

/**
 * "Forgot password?": a reset link by mail, single-use, for 30 minutes. Asking answers the same whether or not the
 * e-mail is an account's, in the same time: the request only takes its throttle slots and joins a queue; one fiber
 * looks the e-mail up, stores a link and sends the mail, one request after another. Setting a password through a
 * link follows the password rule and hashing of `cbs account password`, and like it ends the user's browser
 * sessions, and nothing else (API keys and assistants' access stay).
 */
export class PasswordResets extends Effect.Service<PasswordResets>()("SignIn/PasswordResets", {
  dependencies: [ResetsRepo.Default, SignInThrottle.Default, Accounts.Default, Mailer.Default],
  scoped: Effect.gen(function* () {
    const repo = yield* ResetsRepo
    const throttle = yield* SignInThrottle
    const accounts = yield* Accounts
    const mailer = yield* Mailer
    const checks = yield* PasswordChecks
    const base = yield* PublicUrl
    const sql = yield* SqlClient.SqlClient
    const queue = yield* Queue.dropping<MailRequest>(WAITING_MAILS)

    /** Stores a link for the e-mail's user, if there is one, and mails it. */
    const deliver = Effect.fn("PasswordResets.deliver")(function* (request: MailRequest) {
      const user = yield* accounts.findByEmail(request.email)
      if (Option.isNone(user)) return
      yield* repo.prune(iso(request.at))
      const selector = randomBytes(16).toString("base64url")
      const verifier = randomBytes(32).toString("base64url")
      yield* repo.insert({
        selector,
        verifier_hash: hashSecret(verifier),
        user_id: user.value.user_id,
        created_at: iso(request.at),
        expires_at: iso(request.at + RESET_MINUTES * 60_000)
      })
      const link = `${base}/signin/reset?token=cbs_r_${selector}.${verifier}`
      yield* mailer.send(resetMail({ to: user.value.email, link, base, minutes: RESET_MINUTES }))
    })

    yield* Queue.take(queue).pipe(
      Effect.flatMap((request) =>
        deliver(request).pipe(
          Effect.catchAllCause((cause) => Effect.logError("A password reset mail could not be sent", cause))
        )
      ),
      Effect.forever,
      Effect.forkScoped
    )

    /**
     * Asks for a reset mail to `email`: takes the throttle's reset slots (per e-mail and per client address, held
     * for the window) and queues the request. Known or not, the e-mail gets the same answer.
     */
    const request = Effect.fn("PasswordResets.request")(function* (attempt: {
      readonly email: string
      readonly ip: string | null
    }) {
      const email = attempt.email.trim().toLowerCase()
      const slots = yield* throttle.take({ email, ip: attempt.ip }, "reset")
      if (Option.isNone(slots)) return yield* new ResetThrottled()
      const at = yield* Clock.currentTimeMillis
      if (!(yield* Queue.offer(queue, { email, at }))) {
        yield* Effect.logWarning(`${WAITING_MAILS} password reset mails are waiting already; this one was dropped`)
      }
    })

    /** The link's selector and user when it works now; its verifier compared in constant time. */
    const check = Effect.fn("PasswordResets.check")(function* (token: string) {
      const [, selector, verifier] = TOKEN.exec(token) ?? []
      if (selector === undefined || verifier === undefined) return yield* new ResetLinkRefused({ reason: "unknown" })
      const stored = yield* repo.find(selector, iso(yield* Clock.currentTimeMillis))
      if (Option.isNone(stored) || !sameHash(stored.value.verifier_hash, hashSecret(verifier))) {
        return yield* new ResetLinkRefused({ reason: "unknown" })
      }
      if (stored.value.used) return yield* new ResetLinkRefused({ reason: "used" })
      if (stored.value.expired) return yield* new ResetLinkRefused({ reason: "expired" })
      return { selector, userId: stored.value.user_id, email: stored.value.email }
    })

    /**
     * Sets a new password through a link `check` found working (the claim below refuses it if it was used or expired
     * since): the rule first, then the hash (among the service's password checks, so 503
     * `unavailable` when they are all taken), then, in one transaction, the link used, the password stored, the
     * user's browser sessions and other links ended. Of two uses of a link only one sets a password.
     */
    const complete = Effect.fn("PasswordResets.complete")(function* (
      link: Effect.Effect.Success<ReturnType<typeof check>>,
      password: string
    ) {
      const problem = passwordProblem(password)
      if (problem !== undefined) return yield* new NewPasswordRefused({ problem })
      const hash = yield* checks.run(hashPassword(password))
      const now = iso(yield* Clock.currentTimeMillis)
      yield* Effect.gen(function* () {
        if (!(yield* repo.claim(link.selector, now))) return yield* new ResetLinkRefused({ reason: "used" })
        yield* accounts.setPasswordHash(link.userId, hash)
        yield* repo.deleteOthers(link.userId, link.selector)
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      return { email: link.email }
    })

    return { enabled: mailer.enabled, request, check, complete }
  })
}) {}
