import { jobKind } from "../Jobs/Jobs.js"

/**
 * One attempt of a webhook delivery: `attempt` is how many attempts the delivery had when the job was sent, so a job
 * that runs again after its instance died finds the attempt already recorded, or not, and acts once.
 */
export interface DeliveryAttempt {
  readonly delivery: number
  readonly attempt: number
}

/**
 * A delivery's attempt takes at most the 10 s of its request and a few statements: a run still going after a minute
 * was abandoned by an instance that died, and runs again (at most twice; the delivery's own schedule does the rest).
 */
export const DeliveryJob = jobKind<DeliveryAttempt>({
  name: "webhook-delivery",
  expireInSeconds: 60,
  retryLimit: 2,
  retryDelaySeconds: 5
})
