import { Clock, Data, Duration, Effect, Fiber } from "effect"
import { AppConfig } from "../Config.js"

/** A request stopped by its deadline; answered 503 `unavailable` with `Retry-After` (see ClientErrors.ts). */
export class RequestTimedOut extends Data.TaggedError("RequestTimedOut")<{ readonly seconds: number }> {
  override get message() {
    return `The request did not finish within ${this.seconds} s.`
  }
}

/**
 * The request timeout (REQUEST_TIMEOUT_SECONDS). Each request runs in one child fiber, registered with its deadline;
 * one watchdog fiber for the whole server sleeps, on the effect clock, until the earliest deadline of the requests in
 * flight and interrupts those past it. `Effect.timeout` would race every request against a timer in two more fibers
 * of its own, which cost about a seventh of the CPU of a list request.
 */
export class RequestDeadlines extends Effect.Service<RequestDeadlines>()("Server/RequestDeadlines", {
  scoped: Effect.gen(function* () {
    const { requestTimeoutSeconds } = yield* AppConfig
    const timeoutMs = requestTimeoutSeconds * 1000
    // The requests in flight and their deadlines; the watchdog takes out those it interrupts.
    const running = new Map<Fiber.RuntimeFiber<unknown, unknown>, number>()

    // Open while requests are in flight: with none, the watchdog waits rather than waking on a schedule (on the test
    // clock, moved on by years at once, a schedule would wake for every step).
    const inFlight = yield* Effect.makeLatch(false)
    yield* Effect.gen(function* () {
      yield* inFlight.await
      const now = yield* Clock.currentTimeMillis
      // Deadlines are registered in the order they fall due: the first one not yet due is the next to look at.
      let next: number | undefined
      for (const [fiber, deadline] of running) {
        if (deadline > now) {
          next = deadline
          break
        }
        running.delete(fiber)
        yield* Fiber.interruptFork(fiber)
      }
      if (next !== undefined) return yield* Effect.sleep(Duration.millis(next - now))
      yield* Effect.sync(() => {
        if (running.size === 0) inFlight.unsafeClose()
      })
    }).pipe(Effect.forever, Effect.forkScoped)

    /**
     * Runs `self` with the request's deadline: past it, `self` is interrupted and this fails with `RequestTimedOut`.
     * Whatever `self` leaves in fiber-local state (the pre-response handlers that add the limit headers and record
     * the call) is kept, whether it succeeded or failed.
     */
    const within = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | RequestTimedOut, R> =>
      Effect.gen(function* () {
        const started = yield* Clock.currentTimeMillis
        const fiber = yield* Effect.fork(self)
        running.set(fiber, started + timeoutMs)
        inFlight.unsafeOpen()
        const exit = yield* Fiber.await(fiber).pipe(Effect.onInterrupt(() => Effect.sync(() => running.delete(fiber))))
        // Still registered: it ended by itself. Gone: the watchdog took it out and interrupted it.
        if (!running.delete(fiber)) return yield* new RequestTimedOut({ seconds: requestTimeoutSeconds })
        yield* Fiber.inheritAll(fiber)
        return yield* exit
      })

    return { within }
  })
}) {}
