import { Effect } from "effect"
import { AppConfig } from "../Config.js"
import { Unavailable } from "../Domain/Errors.js"

/**
 * Checks that may wait for each one running. A check takes about a third of a second (scrypt at N=2^17), so with three
 * running a sign-in waits at most about 1.3 s: well within the request deadline. A longer queue would only hold
 * sign-ins until their deadline, each holding its connection and its memory meanwhile.
 */
const WAITING_PER_CHECK = 4

/**
 * The password checks of the service (scrypt, see Passwords.ts), bounded: scrypt runs on libuv's thread pool, which
 * file reads and DNS lookups share, and each check holds 128 MiB while it runs. At most PASSWORD_CHECKS run at once
 * (by default one less than the pool's threads, so that one is always free for the rest); a few more wait their
 * turn, and any beyond them is refused at once with 503 `unavailable` rather than queued without bound. Under a burst
 * of sign-ins some are told to retry in a second; none waits past its deadline, and nothing else waits for a thread.
 */
export class PasswordChecks extends Effect.Service<PasswordChecks>()("Auth/PasswordChecks", {
  effect: Effect.gen(function* () {
    const { passwordChecks } = yield* AppConfig
    const permits = yield* Effect.makeSemaphore(passwordChecks)
    const room = passwordChecks * (1 + WAITING_PER_CHECK)
    // Checks running or waiting: counted and judged in one synchronous step, so two requests never both take the last place.
    let admitted = 0

    /** Runs `check` (the password work of one request) with one of the permits, or fails with 503 when all are taken and the waiting room is full. */
    const run = <A, E, R>(check: Effect.Effect<A, E, R>): Effect.Effect<A, E | Unavailable, R> =>
      Effect.suspend((): Effect.Effect<A, E | Unavailable, R> => {
        if (admitted >= room) {
          return Effect.fail(
            new Unavailable({ message: "Too many sign-ins are being checked at the moment; retry in a second." })
          )
        }
        admitted++
        return permits
          .withPermits(1)(check)
          .pipe(Effect.ensuring(Effect.sync(() => admitted--)))
      })

    return { run }
  })
}) {}
