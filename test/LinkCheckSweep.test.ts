// @tags: engine
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { Jobs } from "../src/Jobs/Jobs.js"
import { Checker } from "../src/LinkChecks/Checker.js"
import { hostsToStart, LinkCheckJob } from "../src/LinkChecks/Work.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

/**
 * The minute sweep of the link checks: which hosts it starts a round for. Its queue exists, but no worker runs here,
 * so a step sent stays waiting, as it does when every worker is busy.
 */

const SweepLive = Layer.mergeAll(Jobs.Default, Checker.Default).pipe(Layer.provideMerge(TestDatabaseLive))

let sites = 0

/** A website with one backlink due now on each of `hosts`. */
const dueOn = (hosts: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const n = ++sites
    const [account] = yield* sql<{ id: number }>`insert into accounts (name) values (${`Sweep ${n}`}) returning id`
    const [site] = yield* sql<{ id: number }>`insert into sites ${sql.insert({
      account_id: account!.id,
      website_url: `https://sweep${n}.example`
    })} returning id`
    for (const host of hosts) {
      yield* sql`insert into backlinks ${sql.insert({
        site_id: site!.id,
        source_url: `https://${host}/story`,
        target_url: `https://sweep${n}.example/`,
        category: "industry"
      })}`
    }
    yield* sql`update backlinks set next_check_at = now() - interval '1 second' where site_id = ${site!.id}`
  }).pipe(Effect.orDie)

layer(SweepLive)("Link check sweep", (it) => {
  describe("rounds", () => {
    it.effect(
      "starts a round for each idle host with checks due, and none for a host whose round's next step waits in the queue",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(Date.now())
          const jobs = yield* Jobs
          yield* jobs.queue(LinkCheckJob)
          yield* dueOn(["waiting.example", "idle.example"])
          // The round of waiting.example sent its next step; no worker has taken it yet, and the host's pause is over.
          yield* jobs.send(LinkCheckJob, { host: "waiting.example" })
          const hosts = yield* hostsToStart
          assert.include(hosts, "idle.example")
          assert.notInclude(hosts, "waiting.example")
        })
    )
  })
})
