// @tags: engine runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Clock, ConfigProvider, Effect, Fiber, Layer, Option } from "effect"
import type { BacklinkId, SiteId } from "../src/Domain/Ids.js"
import { OutboundPolicy } from "../src/Http/OutboundFetch.js"
import { Jobs, RunsWorkers } from "../src/Jobs/Jobs.js"
import { Checker } from "../src/LinkChecks/Checker.js"
import { LINK_CHECK_LIMITS } from "../src/LinkChecks/PageFetcher.js"
import { LinkCheckSettings } from "../src/LinkChecks/Settings.js"
import { hostsToStart, LinkCheckJob } from "../src/LinkChecks/Work.js"
import { BackgroundWorkLive } from "../src/Server/BackgroundWork.js"
import { cbs } from "./support/Cbs.js"
import { eventually } from "./support/Eventually.js"
import { answer, type Page, pageHost } from "./support/PageHosts.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"
import { TestApp, testServerOn } from "./support/TestServer.js"

/**
 * The link checker as an instance runs it (its background work on the job queue, LINK_CHECKS) and as an operator
 * runs it (`cbs backlinks check`), against a website of the test's own on this machine. The file's server runs no
 * background work of its own: each test starts the one it needs.
 */

const TARGET = "https://customer.example/"
const page = (inside: string): Page => answer(`<!doctype html><p>${inside}</p>`)
const LINK = `<a href="${TARGET}">Customer</a>`
const loopbackAllowed = { trustedHosts: new Set<string>(), ca: undefined, allowLoopback: true }

const newSite = Effect.gen(function* () {
  const app = yield* TestApp
  const { accountId } = yield* app.makeAccount()
  return yield* app.makeSite(accountId)
})

const backlinkOn = (siteId: SiteId, sourceUrl: string, status = "pending") =>
  Effect.flatMap(TestApp, (app) => app.makeBacklink(siteId, { source_url: sourceUrl, target_url: TARGET, status }))

/** Makes backlinks due now (new ones are spread over their first hour). */
const dueNow = (ids: ReadonlyArray<BacklinkId>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`update backlinks set next_check_at = now() - interval '1 second' where id in ${sql.in(ids)}`.pipe(Effect.orDie)
  )

const checksOf = (ids: ReadonlyArray<BacklinkId>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      readonly n: number
    }>`select count(*)::int as n from backlink_checks where backlink_id in ${sql.in(ids)}`.pipe(
      Effect.map(([row]) => row!.n),
      Effect.orDie
    )
  )

/** The instance's background work, as `cbs serve` runs it, with LINK_CHECKS `enabled` or not. */
const backgroundWork = (enabled: boolean) =>
  Layer.build(
    BackgroundWorkLive.pipe(
      Layer.provide(
        Layer.mergeAll(
          Layer.succeed(RunsWorkers, true),
          Layer.succeed(OutboundPolicy, loopbackAllowed),
          Layer.succeed(LinkCheckSettings, {
            enabled,
            userAgent: "content-backlink-service-link-checker/1.0 (+http://cbs.test/link-checker)",
            limits: LINK_CHECK_LIMITS
          })
        )
      )
    )
  )

/** Whether the link checks' minute sweep is on the job queue's schedule. */
const sweepScheduled = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly n: number }>`select count(*)::int as n from pgboss.schedule where name = 'link-check-sweep'`.pipe(
    Effect.map(([row]) => row!.n > 0),
    Effect.orDie
  )
)

/** `cbs …` with OUTBOUND_ALLOW_LOOPBACK=true, as a developer runs it against a website on this machine. */
const cbsLoopback = (...args: ReadonlyArray<string>) =>
  cbs(...args).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["OUTBOUND_ALLOW_LOOPBACK", "true"]]))))

/** A test on the real clock: the job queue, the pacing and the hosts keep real time. */
const live = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withClock(effect, Clock.make())

layer(testServerOn(TestDatabaseLive), { timeout: "120 seconds" })("The link checker at work", (it) => {
  describe("background work", () => {
    it.scoped("LINK_CHECKS=off: the instance schedules no link checks and runs none", () =>
      Effect.gen(function* () {
        yield* Effect.scoped(backgroundWork(false))
        assert.isFalse(yield* sweepScheduled)
      }).pipe(live)
    )

    it.scoped("an instance's workers check a host's due backlinks in a round, one step after another", () =>
      Effect.gen(function* () {
        const siteId = yield* newSite
        const host = yield* pageHost({ "/a": page(LINK), "/b": page("nothing") })
        // `localhost`: a host name of this test's own for the pacing.
        const origin = host.origin.replace("127.0.0.1", "localhost")
        const ids = [yield* backlinkOn(siteId, `${origin}/a`), yield* backlinkOn(siteId, `${origin}/b`)]
        yield* dueNow(ids)
        yield* Effect.gen(function* () {
          yield* backgroundWork(true)
          assert.isTrue(yield* sweepScheduled)
          // The round the minute sweep would start for the host.
          const jobs = yield* Jobs
          yield* jobs.queue(LinkCheckJob)
          yield* jobs.send(LinkCheckJob, { host: "localhost" })
          yield* jobs.wake
          assert.strictEqual(yield* eventually(checksOf(ids), (n) => n === 2), 2)
        }).pipe(Effect.scoped)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly status: string }>`
          select status from backlinks where id in ${sql.in(ids)} order by id`.pipe(Effect.orDie)
        assert.deepStrictEqual(
          rows.map((row) => row.status),
          ["live", "lost"]
        )
        assert.strictEqual(host.visits.length, 2)
      }).pipe(Effect.provide(Jobs.Default), live)
    )

    it.scoped("a host that never answers does not hold up another host's checks", () =>
      Effect.gen(function* () {
        const siteId = yield* newSite
        const stuck = yield* pageHost({ "/": () => {} })
        const fine = yield* pageHost({ "/": page(LINK) })
        const slow = yield* backlinkOn(siteId, `${stuck.origin.replace("127.0.0.1", "localhost")}/`)
        const quick = yield* backlinkOn(siteId, `${fine.origin}/`)
        yield* dueNow([slow, quick])
        const checker = yield* Checker
        const checking = (host: string) =>
          checker.stepHost(host).pipe(Effect.provideService(OutboundPolicy, loopbackAllowed))
        const stuckRound = yield* Effect.fork(checking("localhost"))
        // The stuck host's check has its request out (the host has it) before the other host's round starts.
        yield* eventually(
          Effect.sync(() => stuck.visits.length),
          (n) => n === 1
        )
        assert.isTrue(yield* checking("127.0.0.1"))
        assert.strictEqual(yield* checksOf([quick]), 1)
        // The stuck one is still waiting for its answer (its time limit is 15 s).
        assert.isTrue(Option.isNone(yield* Fiber.poll(stuckRound)))
        yield* Fiber.interrupt(stuckRound)
      }).pipe(Effect.provide(Checker.Default), live)
    )
    it.scoped(
      "the sweep starts a round for each idle host with checks due, and none for a host whose round's next step waits",
      () =>
        Effect.gen(function* () {
          const siteId = yield* newSite
          const ids = [
            yield* backlinkOn(siteId, "https://waiting.example/story"),
            yield* backlinkOn(siteId, "https://idle.example/story")
          ]
          yield* dueNow(ids)
          const jobs = yield* Jobs
          yield* jobs.queue(LinkCheckJob)
          // The round of waiting.example sent its next step; no worker has taken it yet, and the host's pause is over.
          yield* jobs.send(LinkCheckJob, { host: "waiting.example" })
          const hosts = yield* hostsToStart
          assert.include(hosts, "idle.example")
          assert.notInclude(hosts, "waiting.example")
        }).pipe(Effect.provide([Jobs.Default, Checker.Default]), live)
    )
  })

  describe("cbs backlinks check", () => {
    it.scoped("--site checks every backlink of the website now and prints each outcome and the status it has", () =>
      Effect.gen(function* () {
        const siteId = yield* newSite
        const host = yield* pageHost({ "/kept": page(LINK), "/removed": page("nothing") })
        const kept = yield* backlinkOn(siteId, `${host.origin}/kept`)
        const removed = yield* backlinkOn(siteId, `${host.origin}/removed`, "live")
        const run = yield* cbsLoopback("backlinks", "check", "--site", String(siteId))
        assert.strictEqual(run.code, 0, run.stderr)
        const lines = run.stdout.split("\n")
        assert.match(
          lines.find((line) => line.startsWith(`${kept} `)) ?? "",
          /found, HTTP 200, \d+ ms {2}→ live \(was pending\)/
        )
        assert.match(
          lines.find((line) => line.startsWith(`${removed} `)) ?? "",
          /link_removed, HTTP 200, \d+ ms {2}→ lost \(link_removed\) \(was live\)/
        )
        assert.strictEqual(lines.at(-1), "2 backlink(s) checked: 1 not lost, 1 lost.")
        const json = yield* cbsLoopback("backlinks", "check", "--backlink", String(kept), "--json")
        assert.strictEqual(json.code, 0, json.stderr)
        const [only, ...rest] = JSON.parse(json.stdout).checked
        assert.strictEqual(rest.length, 0)
        assert.strictEqual(only.backlink, kept)
        assert.strictEqual(only.outcome, "found")
        assert.strictEqual(only.status, "live")
      }).pipe(live)
    )

    it.scoped("a backlink that does not exist, or --site with --backlink, is one line on stderr and exit 1", () =>
      Effect.gen(function* () {
        const missing = yield* cbs("backlinks", "check", "--backlink", "999999999")
        assert.strictEqual(missing.code, 1)
        assert.match(missing.stderr, /^cbs: no backlink with id 999999999 has a source and a target address to check$/)
        const both = yield* cbs("backlinks", "check", "--site", "1", "--backlink", "1")
        assert.strictEqual(both.code, 1)
        assert.match(both.stderr, /^cbs: give --site or --backlink, not both$/)
      }).pipe(live)
    )

    it.scoped(
      "without the development setting, a backlink on this machine is not fetched: unreachable, status kept",
      () =>
        Effect.gen(function* () {
          const siteId = yield* newSite
          const host = yield* pageHost({ "/kept": page(LINK) })
          const id = yield* backlinkOn(siteId, `${host.origin}/kept`, "live")
          const run = yield* cbs("backlinks", "check", "--backlink", String(id))
          assert.strictEqual(run.code, 0, run.stderr)
          assert.match(run.stdout, /unreachable, .*not a public internet address.* {2}→ live/)
          assert.strictEqual(host.visits.length, 0)
        })
    )
  })
})
