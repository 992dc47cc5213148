import { Effect } from "effect"
import { MAX_CONCURRENT_WRITES } from "../Domain/ArticleEdits.js"
import type { AccountId } from "../Domain/Ids.js"

interface Entry {
  readonly semaphore: Effect.Semaphore
  users: number
}

/**
 * At most MAX_CONCURRENT_WRITES article writes of one account at once: a semaphore per account with writes running
 * or waiting, dropped when the last of them ends. The others wait for their turn holding no database connection and
 * no sanitiser thread, so that one account sending many large writes at once never holds all of the pool's
 * connections or threads, and another account's requests are not queued behind them.
 */
export class WritePermits extends Effect.Service<WritePermits>()("Articles/WritePermits", {
  effect: Effect.sync(() => {
    const entries = new Map<AccountId, Entry>()

    const enter = (accountId: AccountId) =>
      Effect.sync(() => {
        const entry = entries.get(accountId) ?? {
          semaphore: Effect.unsafeMakeSemaphore(MAX_CONCURRENT_WRITES),
          users: 0
        }
        entry.users++
        entries.set(accountId, entry)
        return entry
      })

    const leave = (accountId: AccountId, entry: Entry) =>
      Effect.sync(() => {
        if (--entry.users === 0) entries.delete(accountId)
      })

    /** Runs `effect` once one of the account's permits is free. */
    const withPermit = <A, E, R>(accountId: AccountId, effect: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        enter(accountId),
        (entry) => entry.semaphore.withPermits(1)(effect),
        (entry) => leave(accountId, entry)
      )

    return { withPermit }
  })
}) {}
