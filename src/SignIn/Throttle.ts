import { SqlClient } from "@effect/sql"
import { Clock, Data, Effect, Option } from "effect"
import { type SlotKind, SlotsRepo } from "./SlotsRepo.js"

/** Password checks (and reset mails) are counted within this window... */
export const THROTTLE_WINDOW_MINUTES = 15
/** ...up to this many password checks per e-mail address, and as many per client address... */
const MAX_CHECKS = 10
/** ...and this many reset mails per e-mail address (so that no one fills another's mailbox), 10 per client address. */
const MAX_RESET_MAILS = 3

/** The slots an attempt takes: sign-in's, or a reset mail's, each kind with its limit. */
const PURPOSES = {
  signIn: { ip: { kind: "ip", max: MAX_CHECKS }, email: { kind: "email", max: MAX_CHECKS } },
  reset: { ip: { kind: "reset_ip", max: MAX_CHECKS }, email: { kind: "reset_email", max: MAX_RESET_MAILS } }
} as const satisfies Record<string, Record<"ip" | "email", { readonly kind: SlotKind; readonly max: number }>>

const iso = (ms: number) => new Date(ms).toISOString()

/** An attempt found a slot used up; inside the transaction, so that a slot taken before it is given back. */
class NoSlot extends Data.TaggedError("NoSlot") {}

/** The slots one sign-in attempt holds while its password is checked. */
export interface Slots {
  readonly email: string
  readonly ip: string | null
  readonly at: string
}

/**
 * The sign-in throttle: a password is checked only with a slot of its e-mail and one of its client address, taken
 * before the check. A wrong password keeps them for the window; a right one gives back only its own, so a success
 * never frees the slots that guesses sent beside it hold. A reset mail is asked for with slots of its own kinds in
 * the same way, and keeps them for the window.
 */
export class SignInThrottle extends Effect.Service<SignInThrottle>()("SignIn/Throttle", {
  dependencies: [SlotsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* SlotsRepo
    const sql = yield* SqlClient.SqlClient

    /**
     * Takes both slots, or none: the client address's first, then the e-mail's (always in this order, so two
     * attempts never wait for each other's locks the other way round). Some(slots), or None when either is used up.
     */
    const take = Effect.fn("SignInThrottle.take")(function* (
      attempt: { readonly email: string; readonly ip: string | null },
      purpose: keyof typeof PURPOSES = "signIn"
    ) {
      const now = yield* Clock.currentTimeMillis
      const at = iso(now)
      const since = iso(now - THROTTLE_WINDOW_MINUTES * 60_000)
      const slot = (which: "email" | "ip", key: string) =>
        repo.take({ ...PURPOSES[purpose][which], key, now: at, since })
      return yield* Effect.gen(function* () {
        if (attempt.ip !== null && !(yield* slot("ip", attempt.ip))) return yield* new NoSlot()
        if (!(yield* slot("email", attempt.email))) return yield* new NoSlot()
        return Option.some<Slots>({ email: attempt.email, ip: attempt.ip, at })
      }).pipe(
        sql.withTransaction,
        Effect.catchTags({ SqlError: Effect.die, NoSlot: () => Effect.succeed(Option.none<Slots>()) })
      )
    })

    /** After a right password: gives back the attempt's own two slots, and prunes rows long past. */
    const giveBack = Effect.fn("SignInThrottle.giveBack")(function* (slots: Slots) {
      yield* repo.giveBack({ kind: "email", key: slots.email, at: slots.at })
      if (slots.ip !== null) yield* repo.giveBack({ kind: "ip", key: slots.ip, at: slots.at })
      const now = yield* Clock.currentTimeMillis
      yield* repo.prune(iso(now - 24 * 60 * 60_000))
    })

    return { take, giveBack }
  })
}) {}
