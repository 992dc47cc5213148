import { Clock, Effect } from "effect"
import { Jobs, jobKind } from "../Jobs/Jobs.js"
import { Checker, HOST_PAUSE_MS } from "./Checker.js"
import { LinkCheckSettings } from "./Settings.js"

/**
 * A step of one host's round: its next due backlink checked. A step that checked one sends the next, to start once
 * the host's pause is over; the round ends at the first step that finds nothing due. A run still going after two
 * minutes (a check takes at most 15 s) was abandoned by an instance that died: it runs again once.
 */
export const LinkCheckJob = jobKind<{ readonly host: string }>({
  name: "link-check",
  expireInSeconds: 120,
  retryLimit: 1,
  retryDelaySeconds: 30
})

/** Every minute, one instance starts a round for each host with checks due that no round is on. */
const LinkCheckSweepJob = jobKind<{ readonly sweep: true }>({
  name: "link-check-sweep",
  expireInSeconds: 120,
  retryLimit: 0,
  retryDelaySeconds: 60
})

/** How many hosts' rounds an instance runs at once: the checks wait on the network far more than on the CPU. */
export const LINK_CHECK_WORKERS = 8

/** The most rounds one sweep starts (the next sweep starts more). */
const SWEEP_HOSTS = 1_000

/** The real time: the job queue's times are the database's, whatever clock the checks are dated by. */
const realNow = Clock.currentTimeMillis.pipe(Effect.withClock(Clock.make()))

/**
 * The hosts the sweep starts a round for: checks due, no instance checking the host, and no step of its round waiting
 * in the queue. A round whose next step waits for a worker (the workers are all busy, or it has not been polled yet)
 * looks idle in link_check_hosts; a second round started beside it would make every step of the one wait out the
 * pause after a step of the other, asleep on a worker.
 */
export const hostsToStart = Effect.gen(function* () {
  const jobs = yield* Jobs
  const checker = yield* Checker
  const scheduled = (yield* jobs.waiting(LinkCheckJob)).map((step) => step.host)
  return yield* checker.idleDueHosts(yield* Clock.currentTimeMillis, SWEEP_HOSTS, scheduled)
})

/**
 * The link checker's background work on this instance: the rounds, LINK_CHECK_WORKERS at a time, and the minute
 * sweep; nothing with LINK_CHECKS=off (or WORKERS=off, which runs no job at all).
 */
export const linkCheckWork = Effect.gen(function* () {
  const jobs = yield* Jobs
  const checker = yield* Checker
  if (!(yield* LinkCheckSettings).enabled) return
  const step = ({ host }: { readonly host: string }) =>
    checker.stepHost(host).pipe(
      Effect.flatMap((checked) =>
        checked === true
          ? Effect.flatMap(realNow, (now) => {
              const startAfter = new Date(now + HOST_PAUSE_MS)
              return jobs
                .send(LinkCheckJob, { host }, { startAfter })
                .pipe(Effect.zipRight(jobs.wakeAt(LinkCheckJob, startAfter)))
            })
          : Effect.void
      ),
      Effect.catchAllCause((cause) => Effect.logError(`Link check of a backlink on ${host} failed`, cause))
    )
  const sweep = Effect.gen(function* () {
    const hosts = yield* hostsToStart
    yield* jobs.sendAll(
      LinkCheckJob,
      hosts.map((host) => ({ host }))
    )
    yield* jobs.wake
  }).pipe(Effect.catchAllCause((cause) => Effect.logError("The link checks' sweep failed; it runs again", cause)))
  yield* jobs.work(LinkCheckJob, LINK_CHECK_WORKERS, step)
  yield* jobs.work(LinkCheckSweepJob, 1, () => sweep)
  yield* jobs.schedule(LinkCheckSweepJob, "* * * * *", { sweep: true })
})
