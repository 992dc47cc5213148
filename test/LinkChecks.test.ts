// @tags: engine runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Clock, Effect, Layer, TestClock } from "effect"
import type { AccountId, BacklinkId, SiteId } from "../src/Domain/Ids.js"
import { OutboundPolicy } from "../src/Http/OutboundFetch.js"
import { Checker, HOST_PAUSE_MS } from "../src/LinkChecks/Checker.js"
import { LINK_CHECK_LIMITS } from "../src/LinkChecks/PageFetcher.js"
import { LinkChecksRepo } from "../src/LinkChecks/Repo.js"
import { LinkCheckSettings } from "../src/LinkChecks/Settings.js"
import { assertError } from "./support/ArticleWrites.js"
import { request } from "./support/Http.js"
import { insertCheck } from "./support/LinkHealth.js"
import { answer, neverEnding, type Page, pageHost, redirect } from "./support/PageHosts.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"
import { TestApp, testServerOn } from "./support/TestServer.js"

/**
 * The link checker's verdicts, stored: a website of the test's own on 127.0.0.1 holds the backlinks' source pages
 * (reached as OUTBOUND_ALLOW_LOOPBACK=true allows), the checks are dated by the test clock, and what they stored is
 * read back through the API (GET /backlinks/{id}) and the events.
 */

const TARGET = "https://customer.example/services"
const LINK = `<a href="${TARGET}">Customer services</a>`
const page = (inside: string): Page => answer(`<!doctype html><title>Story</title><p>Read ${inside} now.</p>`)

const loopbackAllowed = { trustedHosts: new Set<string>(), ca: undefined, allowLoopback: true }

const LinkCheckServerLive = Layer.mergeAll(LinkChecksRepo.Default, Checker.Default).pipe(
  Layer.provideMerge(testServerOn(TestDatabaseLive))
)

const HOUR = 3_600_000

/** A new account's website and its key. */
const newSite = Effect.gen(function* () {
  const app = yield* TestApp
  const { accountId, key } = yield* app.makeAccount()
  const siteId = yield* app.makeSite(accountId)
  return { accountId, key, siteId }
})

/** A backlink of `siteId` whose source page is `sourceUrl`, in `status` (live unless given). */
const backlinkOn = (siteId: SiteId, sourceUrl: string, status = "live") =>
  Effect.flatMap(TestApp, (app) => app.makeBacklink(siteId, { source_url: sourceUrl, target_url: TARGET, status }))

/** The checker's settings, with a time limit of 1 s: the test's hosts that never answer need not hold a test 15 s. */
const settings = {
  enabled: true,
  userAgent: "content-backlink-service-link-checker/1.0 (+http://cbs.test/link-checker)",
  limits: { ...LINK_CHECK_LIMITS, timeoutMs: 1_000 }
}

/**
 * On the test clock at START: a new account's website, a host of the test's own serving `pages`, and a backlink of
 * the website whose source page is the host's `path`.
 */
const backlinkServed = (pages: Record<string, Page>, path: string, status = "live") =>
  Effect.gen(function* () {
    yield* TestClock.setTime(START)
    const site = yield* newSite
    const host = yield* pageHost(pages)
    const id = yield* backlinkOn(site.siteId, `${host.origin}${path}`, status)
    return { ...site, host, id }
  })

/** Checks backlink `id` now (as a round does, without the host's pause), on the test clock. */
const checkNow = (id: BacklinkId) =>
  Effect.gen(function* () {
    const repo = yield* LinkChecksRepo
    const checker = yield* Checker
    const [due] = yield* repo.byIds([id])
    return yield* checker
      .check(due!)
      .pipe(Effect.provideService(OutboundPolicy, loopbackAllowed), Effect.provideService(LinkCheckSettings, settings))
  })

/** The backlink with its checks, as GET /backlinks/{id} answers it. */
const backlinkRead = (id: BacklinkId, key: string) =>
  Effect.gen(function* () {
    const res = yield* request("GET", `/api/v1/backlinks/${id}`, { key })
    assert.strictEqual(res.status, 200, res.text)
    return res.body.data
  })

/** The backlink as GET /backlinks/{id} reads it, checked to be `status` with `lost_reason`. */
const backlinkIn = (id: BacklinkId, key: string, status: string, lost_reason: string | null) =>
  Effect.gen(function* () {
    const read = yield* backlinkRead(id, key)
    assert.strictEqual(read.status, status)
    assert.strictEqual(read.lost_reason, lost_reason)
    return read
  })

/** The account's backlink.status_changed events' data, oldest first. */
const statusEvents = (accountId: AccountId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly data: Record<string, unknown> }>`
      select data from events where account_id = ${accountId} and type = 'backlink.status_changed' order by id`
    return rows.map((row) => row.data)
  }).pipe(Effect.orDie)

/** The backlink's next check, as epoch milliseconds. */
const nextCheckAt = (id: BacklinkId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ readonly at: number }>`
      select (extract(epoch from next_check_at) * 1000)::float8 as at from backlinks where id = ${id}`
    return row!.at
  }).pipe(Effect.orDie)

const START = Date.parse("2026-11-02T08:00:00Z")

layer(LinkCheckServerLive, { timeout: "120 seconds" })("Link checks", (it) => {
  describe("a check's verdict", () => {
    it.scoped(
      "the link found on the page (host case, default port, fragment, relative href) is live and indexable, with rel and anchor",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(START)
          const { key, siteId } = yield* newSite
          const host = yield* pageHost()
          host.pages["/a"] = page('<a rel="nofollow UGC" href="https://CUSTOMER.example:443/services#top">Our pick</a>')
          host.pages["/b/"] = answer(
            `<!doctype html><base href="https://customer.example/"><p><a href="services">Services</a></p>`
          )
          for (const [path, rel, anchor] of [
            ["/a", ["nofollow", "ugc"], "Our pick"],
            ["/b/", [], "Services"]
          ] as const) {
            const id = yield* backlinkOn(siteId, `${host.origin}${path}`, "pending")
            const result = yield* checkNow(id)
            assert.strictEqual(result.outcome, "found")
            const read = yield* backlinkIn(id, key, "live", null)
            assert.strictEqual(read.indexable, true)
            assert.deepStrictEqual(read.rel, rel)
            assert.strictEqual(read.last_checked_at, "2026-11-02T08:00:00Z")
            assert.strictEqual(read.checks.length, 1)
            const [seen] = read.checks
            assert.strictEqual(seen.outcome, "found")
            assert.strictEqual(seen.fetched, true)
            assert.strictEqual(seen.http_status, 200)
            assert.strictEqual(seen.final_url, `${host.origin}${path}`)
            assert.strictEqual(seen.anchor_text, anchor)
            assert.strictEqual(seen.error, null)
          }
        })
    )

    it.scoped("a link found on a page that says noindex (meta robots or X-Robots-Tag) stays live, not indexable", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(START)
        const { key, siteId } = yield* newSite
        const host = yield* pageHost()
        host.pages["/meta"] = answer(`<!doctype html><meta name="robots" content="noindex, follow"><p>${LINK}</p>`)
        host.pages["/header"] = answer(`<p>${LINK}</p>`, { "x-robots-tag": "noindex" })
        for (const path of ["/meta", "/header"]) {
          const id = yield* backlinkOn(siteId, `${host.origin}${path}`)
          yield* checkNow(id)
          const read = yield* backlinkRead(id, key)
          assert.strictEqual(read.status, "live", path)
          assert.strictEqual(read.indexable, false, path)
        }
      })
    )

    it.scoped(
      "a page without the link makes a live backlink lost at once (link_removed), with a backlink.status_changed event",
      () =>
        Effect.gen(function* () {
          const { accountId, key, siteId, id } = yield* backlinkServed({ "/gone": page("nothing") }, "/gone")
          const result = yield* checkNow(id)
          assert.strictEqual(result.outcome, "link_removed")
          const read = yield* backlinkIn(id, key, "lost", "link_removed")
          assert.strictEqual(read.indexable, null)
          const [event, ...more] = yield* statusEvents(accountId)
          assert.strictEqual(more.length, 0)
          assert.strictEqual(event!["id"], id)
          assert.strictEqual(event!["site_id"], siteId)
          assert.strictEqual(event!["status"], "lost")
          assert.strictEqual(event!["lost_reason"], "link_removed")
          assert.strictEqual(event!["previous_status"], "live")
          assert.strictEqual(event!["previous_lost_reason"], null)
          assert.strictEqual(event!["last_checked_at"], "2026-11-02T08:00:00Z")
        })
    )

    it.scoped(
      "a lost link that comes back turns live again, with an event; a check that changes nothing has none",
      () =>
        Effect.gen(function* () {
          const { accountId, key, host, id } = yield* backlinkServed({ "/story": page("nothing") }, "/story")
          yield* checkNow(id)
          yield* TestClock.adjust("14 days")
          yield* checkNow(id)
          assert.strictEqual((yield* statusEvents(accountId)).length, 1, "lost twice: one change")
          host.pages["/story"] = page(LINK)
          yield* TestClock.adjust("14 days")
          yield* checkNow(id)
          const read = yield* backlinkIn(id, key, "live", null)
          assert.deepStrictEqual(
            read.checks.map((check: { readonly outcome: string }) => check.outcome),
            ["found", "link_removed", "link_removed"]
          )
          const events = yield* statusEvents(accountId)
          assert.deepStrictEqual(
            events.map((event) => [event["previous_status"], event["status"], event["previous_lost_reason"]]),
            [
              ["live", "lost", null],
              ["lost", "live", "link_removed"]
            ]
          )
        })
    )

    it.scoped(
      "a 404 or 410 seen once keeps the link live and checks again within hours; seen again an hour later, it is lost",
      () =>
        Effect.gen(function* () {
          for (const status of [404, 410]) {
            // The host has no page at /moved (404), or says it is gone (410).
            const pages = status === 410 ? { "/moved": answer("<p>Gone</p>", {}, 410) } : {}
            const { key, id } = yield* backlinkServed(pages, "/moved")
            yield* checkNow(id)
            assert.strictEqual((yield* backlinkRead(id, key)).status, "live")
            const next = yield* nextCheckAt(id)
            assert.isAtLeast(next, START + HOUR)
            assert.isAtMost(next, START + 2 * HOUR)
            // Half an hour later: not yet an hour apart.
            yield* TestClock.adjust("30 minutes")
            yield* checkNow(id)
            assert.strictEqual((yield* backlinkRead(id, key)).status, "live")
            yield* TestClock.adjust("30 minutes")
            yield* checkNow(id)
            const read = yield* backlinkIn(id, key, "lost", "page_not_found")
            assert.deepStrictEqual(
              read.checks.map((check: { readonly http_status: number }) => check.http_status),
              [status, status, status]
            )
          }
        })
    )

    it.scoped(
      "a 5xx or no answer is unreachable only after three failed checks over at least 24 hours, never before",
      () =>
        Effect.gen(function* () {
          const { key, host, id } = yield* backlinkServed({ "/down": answer("<p>Oops</p>", {}, 503) }, "/down")
          for (const hours of [0, 12]) {
            if (hours > 0) yield* TestClock.adjust(`${hours} hours`)
            yield* checkNow(id)
            assert.strictEqual((yield* backlinkRead(id, key)).status, "live")
          }
          // Three failures, but only 23 hours from the first.
          yield* TestClock.adjust("11 hours")
          yield* checkNow(id)
          assert.strictEqual((yield* backlinkRead(id, key)).status, "live")
          // A page that never answers (here: never ends its head) counts the same.
          host.pages["/down"] = neverEnding("")
          yield* TestClock.adjust("1 hour")
          yield* checkNow(id)
          const read = yield* backlinkIn(id, key, "lost", "unreachable")
          assert.deepStrictEqual(
            read.checks.map((check: { readonly outcome: string }) => check.outcome),
            ["unreachable", "unreachable", "unreachable", "unreachable"]
          )
        }),
      { timeout: 60_000 }
    )

    it.scoped("a redirect to a page with the link is live; to a page without it, lost as redirected_away", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(START)
        const { key, siteId } = yield* newSite
        const host = yield* pageHost({ "/with": page(LINK), "/without": page("nothing") })
        host.pages["/to-with"] = redirect(`${host.origin}/with`, 301)
        host.pages["/to-without"] = redirect(`${host.origin}/without`)
        const kept = yield* backlinkOn(siteId, `${host.origin}/to-with`)
        yield* checkNow(kept)
        const keptRead = yield* backlinkRead(kept, key)
        assert.strictEqual(keptRead.status, "live")
        assert.strictEqual(keptRead.checks[0].final_url, `${host.origin}/with`)
        const away = yield* backlinkOn(siteId, `${host.origin}/to-without`)
        yield* checkNow(away)
        yield* backlinkIn(away, key, "lost", "redirected_away")
      })
    )

    it.scoped("a redirect to a private address is refused: no answer, the link keeps its status", () =>
      Effect.gen(function* () {
        const sneaky = { "/sneaky": redirect("http://169.254.169.254/latest/meta-data/") }
        const { key, host, id } = yield* backlinkServed(sneaky, "/sneaky")
        const result = yield* checkNow(id)
        assert.strictEqual(result.outcome, "unreachable")
        const read = yield* backlinkRead(id, key)
        assert.strictEqual(read.status, "live")
        assert.match(read.checks[0].error, /not a public internet address/)
        assert.strictEqual(host.visits.length, 1)
      })
    )

    it.scoped(
      "the host's validators are sent back: a 304 is the page as the last check read it (found stays found)",
      () =>
        Effect.gen(function* () {
          const cached: Page = (req, res) => {
            if (req.headers["if-none-match"] === '"v1"') res.writeHead(304, { etag: '"v1"' }).end()
            else answer(`<p><a rel="sponsored" href="${TARGET}">Sponsor</a></p>`, { etag: '"v1"' })(req, res)
          }
          const { key, host, id } = yield* backlinkServed({ "/cached": cached }, "/cached", "pending")
          yield* checkNow(id)
          yield* TestClock.adjust("7 days")
          yield* checkNow(id)
          assert.strictEqual(host.visits[1]!.headers["if-none-match"], '"v1"')
          const read = yield* backlinkRead(id, key)
          assert.strictEqual(read.status, "live")
          assert.deepStrictEqual(read.rel, ["sponsored"])
          const [latest] = read.checks
          assert.strictEqual(latest.not_modified, true)
          assert.strictEqual(latest.outcome, "found")
          assert.strictEqual(latest.anchor_text, "Sponsor")
        })
    )

    it.scoped("a backlink whose source is an article held here is judged from its stored body, without a fetch", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(START)
        const app = yield* TestApp
        const { key, siteId } = yield* newSite
        // The linking article is another customer's, on this service.
        const other = yield* newSite
        const sourceUrl = `https://partner${siteId}.example/guides/boilers`
        const article = yield* app.makeArticle(other.siteId, { body: `<p>See ${LINK}.</p>` })
        const sql = yield* SqlClient.SqlClient
        yield* sql`update articles set url = ${sourceUrl} where id = ${article}`.pipe(Effect.orDie)
        const id = yield* backlinkOn(siteId, sourceUrl, "pending")
        yield* checkNow(id)
        const read = yield* backlinkRead(id, key)
        assert.strictEqual(read.status, "live")
        assert.strictEqual(read.checks[0].fetched, false)
        assert.strictEqual(read.checks[0].http_status, null)
        assert.strictEqual(read.checks[0].anchor_text, "Customer services")
        yield* sql`update articles set body = '<p>No link now.</p>' where id = ${article}`.pipe(Effect.orDie)
        yield* TestClock.adjust("7 days")
        yield* checkNow(id)
        yield* backlinkIn(id, key, "lost", "link_removed")
      })
    )
  })

  describe("pacing and rounds", () => {
    it.scoped(
      "two instances checking one host at once: one request at a time, at least 2 s apart, each backlink checked once",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(Date.now())
          const { siteId } = yield* newSite
          let open = 0
          let most = 0
          const arrivals: Array<number> = []
          const host = yield* pageHost()
          const slowPage: Page = (req, res) => {
            open++
            most = Math.max(most, open)
            arrivals.push(Date.now())
            setTimeout(() => {
              open--
              page(LINK)(req, res)
            }, 150)
          }
          // The host's name for the pacing: 127.0.0.1 is shared with other tests' hosts, `localhost` is this test's.
          const origin = host.origin.replace("127.0.0.1", "localhost")
          const ids: Array<BacklinkId> = []
          for (const n of [1, 2, 3, 4]) {
            host.pages[`/p${n}`] = slowPage
            ids.push(yield* backlinkOn(siteId, `${origin}/p${n}`, "pending"))
          }
          const sql = yield* SqlClient.SqlClient
          yield* sql`update backlinks set next_check_at = now() - interval '1 minute' where id in ${sql.in(ids)}`.pipe(
            Effect.orDie
          )
          // Two checkers, as two instances have: each its own service over the same database.
          const instance = () =>
            Effect.flatMap(Checker, (checker) =>
              Effect.gen(function* () {
                let steps = 0
                // A round goes on while steps check something; a step that finds the host held elsewhere waits.
                while (steps < 20) {
                  steps++
                  const checked = yield* checker.stepHost("localhost")
                  if (checked === false) return
                  if (checked === undefined) yield* Effect.sleep("200 millis")
                }
              })
            ).pipe(
              Effect.provide(Layer.fresh(Checker.Default)),
              Effect.provideService(OutboundPolicy, loopbackAllowed),
              Effect.withClock(Clock.make())
            )
          yield* Effect.all([instance(), instance()], { concurrency: "unbounded" })
          assert.strictEqual(most, 1)
          assert.strictEqual(arrivals.length, 4)
          for (let i = 1; i < arrivals.length; i++) {
            // Each request starts at least the pause after the one before it ended (it took 150 ms).
            assert.isAtLeast(arrivals[i]! - arrivals[i - 1]!, HOST_PAUSE_MS)
          }
          const [row] = yield* sql<{ readonly checks: number }>`
            select count(*)::int as checks from backlink_checks where backlink_id in ${sql.in(ids)}`.pipe(Effect.orDie)
          assert.strictEqual(row!.checks, 4)
        }),
      { timeout: 60_000 }
    )

    it.scoped("the sweep finds the hosts with checks due that no round holds, and not the others", () =>
      Effect.gen(function* () {
        const { siteId } = yield* newSite
        const sql = yield* SqlClient.SqlClient
        const repo = yield* LinkChecksRepo
        const due = yield* backlinkOn(siteId, "https://due-host.example/a")
        const held = yield* backlinkOn(siteId, "https://held-host.example/a")
        const later = yield* backlinkOn(siteId, "https://later-host.example/a")
        const bare = yield* backlinkOn(siteId, "https://bare-host.example/a")
        yield* sql`update backlinks set next_check_at = now() - interval '1 minute' where id in ${sql.in([due, held, bare])}`.pipe(
          Effect.orDie
        )
        yield* sql`update backlinks set next_check_at = now() + interval '1 day' where id = ${later}`.pipe(Effect.orDie)
        yield* sql`update backlinks set target_url = null where id = ${bare}`.pipe(Effect.orDie)
        assert.isDefined(yield* repo.claimHost("held-host.example", crypto.randomUUID(), 60_000))
        const hosts = yield* repo.idleDueHosts(Date.now(), 1_000, [])
        assert.include(hosts, "due-host.example")
        assert.notInclude(hosts, "held-host.example")
        assert.notInclude(hosts, "later-host.example")
        // A backlink with nothing to check leaves the schedule.
        assert.notInclude(hosts, "bare-host.example")
        const [row] = yield* sql<{ readonly next: string | null }>`
          select next_check_at as next from backlinks where id = ${bare}`.pipe(Effect.orDie)
        assert.strictEqual(row!.next, null)
      })
    )
  })

  describe("reading", () => {
    it.scoped("GET /backlinks/{id} is 404 for another account's backlink, and for one that does not exist", () =>
      Effect.gen(function* () {
        const mine = yield* newSite
        const theirs = yield* newSite
        const id = yield* backlinkOn(theirs.siteId, "https://elsewhere.example/x")
        for (const path of [`/api/v1/backlinks/${id}`, "/api/v1/backlinks/999999999", "/api/v1/backlinks/abc"]) {
          assertError(yield* request("GET", path, { key: mine.key }), 404, "not_found")
        }
        const own = yield* request("GET", `/api/v1/backlinks/${id}`, { key: theirs.key })
        assert.strictEqual(own.status, 200)
        assert.strictEqual(own.body.data.site_id, theirs.siteId)
        assert.deepStrictEqual(own.body.data.checks, [])
      })
    )

    it.scoped("GET /backlinks/{id} shows the last 20 checks, newest first", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* newSite
        const id = yield* backlinkOn(siteId, "https://many-checks.example/x")
        for (let day = 1; day <= 25; day++) {
          yield* insertCheck(id, { checked_at: `2026-10-${String(day).padStart(2, "0")}T06:00:00Z`, outcome: "found" })
        }
        const read = yield* backlinkRead(id, key)
        const times = read.checks.map((check: { readonly checked_at: string }) => check.checked_at)
        assert.strictEqual(times.length, 20)
        assert.strictEqual(times[0], "2026-10-25T06:00:00Z")
        assert.strictEqual(times[19], "2026-10-06T06:00:00Z")
      })
    )

    it.scoped("GET /sites/{id}/backlinks?status=lost lists only the lost ones, with the total of that status", () =>
      Effect.gen(function* () {
        const { key, siteId } = yield* newSite
        const lost = yield* backlinkOn(siteId, "https://a.example/1", "lost")
        yield* backlinkOn(siteId, "https://a.example/2", "live")
        yield* backlinkOn(siteId, "https://a.example/3", "pending")
        const res = yield* request("GET", `/api/v1/sites/${siteId}/backlinks?status=lost`, { key })
        assert.strictEqual(res.status, 200)
        assert.deepStrictEqual(
          res.body.data.map((backlink: { readonly id: number }) => backlink.id),
          [lost]
        )
        assert.strictEqual(res.body.meta.total, 1)
        const bad = yield* request("GET", `/api/v1/sites/${siteId}/backlinks?status=gone`, { key })
        assert.strictEqual(bad.status, 422)
      })
    )

    it.scoped("checks older than 90 days are pruned, newer ones kept", () =>
      Effect.gen(function* () {
        const { key, id } = yield* backlinkServed({ "/p": page(LINK) }, "/p")
        yield* checkNow(id)
        yield* TestClock.adjust("80 days")
        yield* checkNow(id)
        const checker = yield* Checker
        yield* checker.prune(START + 91 * 24 * HOUR, 90)
        const read = yield* backlinkRead(id, key)
        assert.strictEqual(read.checks.length, 1)
        assert.strictEqual(read.last_checked_at, "2027-01-21T08:00:00Z")
      })
    )
  })
})
