// @tags: engine runtime
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Random, Schedule } from "effect"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import type { AccountId, ArticleId } from "../src/Domain/Ids.js"
import { EventsRepo } from "../src/Events/Repo.js"
import { Importer } from "../src/Import/Import.js"
import { assertError, PARTNER, protectedBody } from "./support/ArticleWrites.js"
import {
  DatabaseFaults,
  FAILS_AT_COMMIT,
  FaultyServerLive,
  onPostgres,
  refuseRevisionsAtCommit
} from "./support/DatabaseFaults.js"
import { type Answer, patchArticle, putArticle, request } from "./support/Http.js"
import { importValue, makeAccount, makeArticle, makeSite, withFirstArticle } from "./support/ImportFiles.js"
import { newMcpSession, toolData, toolError } from "./support/McpSession.js"
import { TestApp } from "./support/TestServer.js"
import { open, signedInAccount } from "./support/WebPages.js"

/**
 * The event feed (`GET /api/v1/events` and the tool `list_events`): what every door's changes and the imports leave
 * there, what a change that does not commit leaves (nothing), and how a client pages through it. One server, whose
 * database connections the tests can break (DatabaseFaults), on the real clock; every test has its own account.
 */

interface FeedEvent {
  readonly id: string
  readonly type: string
  readonly created_at: string
  // biome-ignore lint/suspicious/noExplicitAny: an event's data is read field by field in the assertions.
  readonly data: any
}

interface Feed {
  readonly data: ReadonlyArray<FeedEvent>
  readonly next_after: string | null
}

/** GET /api/v1/events with `key` and `query` (as written in a URL): the answer. */
const feed = (key: string, query = "") => request("GET", `/api/v1/events${query === "" ? "" : `?${query}`}`, { key })

/** The feed's answer to `query`, which must be 200. */
const eventsOf = (key: string, query = "per_page=100") =>
  Effect.map(feed(key, query), (answer) => {
    assert.strictEqual(answer.status, 200, answer.text)
    return answer.body as Feed
  })

/** A new account with one website and one article (built from `body`): the account's key and ids. */
const articleOfAccount = (body = "<p>Some text.</p>") =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const { accountId, key } = yield* app.makeAccount()
    const siteId = yield* app.makeSite(accountId)
    const id = yield* app.makeArticle(siteId, { body })
    return { app, accountId, key, siteId, id }
  })

/** A PATCH that must be answered 200. */
const saved = (id: ArticleId, key: string, json: unknown) =>
  Effect.tap(patchArticle(id, key, json), (answer) => assert.strictEqual(answer.status, 200, answer.text))

/** An event's number (its id without `evt_`). */
const numberOf = (event: FeedEvent) => Number(event.id.slice("evt_".length))

/** A statement of the test's own, retried while the service's pool replaces the connections that were broken. */
const settled = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.retry({ times: 50, schedule: Schedule.spaced(Duration.millis(20)) }), Effect.orDie)

/** A request answered below 500, sent again while the pool replaces broken connections. */
const answered = (send: Effect.Effect<Answer, never, TestApp>) =>
  Effect.gen(function* () {
    let answer = yield* send
    for (let attempt = 0; attempt < 20 && answer.status >= 500; attempt++) answer = yield* send
    return answer
  })

/** The article's revision numbers, read once the pool has connections again. */
const revisionNumbers = (id: ArticleId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    settled(sql<{ number: number }>`select number from article_revisions where article_id = ${id} order by number`)
  ).pipe(Effect.map((rows) => rows.map((row) => Number(row.number))))

/** The account of the user with `email` (made by an import) and a new API key of it. */
const keyOfImported = (email: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [user] = yield* sql<{ account_id: number }>`select account_id from users where email = ${email}`.pipe(
      Effect.orDie
    )
    const accountId = Number(user!.account_id) as AccountId
    return { accountId, key: yield* (yield* TestApp).makeKey(accountId) }
  })

/** How many events of each type. */
const countsOf = (events: ReadonlyArray<FeedEvent>) => {
  const counts: Record<string, number> = {}
  for (const event of events) counts[event.type] = (counts[event.type] ?? 0) + 1
  return counts
}

const ServerLive = Layer.provideMerge(Importer.Default, FaultyServerLive)

layer(ServerLive, { excludeTestServices: true })("the event feed", (it) => {
  describe("every saved change is an event", () => {
    it.effect(
      "a PATCH is an article.changed event: the article without its body, origin API, its reason, the fields it changed and the revision it saved",
      () =>
        Effect.gen(function* () {
          const { key, siteId, id } = yield* articleOfAccount()
          assert.deepStrictEqual(yield* eventsOf(key), { data: [], next_after: null })
          yield* saved(id, key, { title: "First title" })
          const answer = yield* saved(id, key, { title: "New title", reason: "clearer title" })
          const { data, next_after } = yield* eventsOf(key)
          assert.lengthOf(data, 2)
          const [first, event] = data
          assert.match(event!.id, /^evt_[1-9][0-9]*$/)
          assert.isAbove(numberOf(event!), numberOf(first!))
          assert.strictEqual(next_after, event!.id)
          assert.strictEqual(event!.type, "article.changed")
          assert.match(event!.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
          const { body, meta_description, protected_links, ...article } = answer.body.data
          assert.deepStrictEqual(event!.data, {
            ...article,
            origin: "API",
            reason: "clearer title",
            changed: ["title"]
          })
          assert.strictEqual(event!.data.revision, 2)
          assert.strictEqual(event!.data.site_id, siteId)
          // The first revision of an article changes every field it sets (from nothing).
          assert.deepStrictEqual(
            [first!.data.revision, first!.data.reason, first!.data.changed],
            [1, null, ["title", "body"]]
          )
          assert.notProperty(event!.data, "body")
        })
    )

    it.effect("update_article is article.changed with origin MCP, and list_events answers what GET /events does", () =>
      Effect.gen(function* () {
        const session = yield* newMcpSession
        const app = yield* TestApp
        const id = yield* app.makeArticle(session.siteId, { body: "<p>Red fish.</p>" })
        const other = yield* app.makeArticle(yield* app.makeSite(session.accountId))
        yield* toolData(session, "update_article", {
          article_id: id,
          replacements: [{ find: "Red", replace: "Blue" }],
          reason: "colour"
        })
        yield* saved(other, session.key, { meta_description: "Elsewhere." })
        const { data } = yield* eventsOf(session.key)
        assert.deepStrictEqual(
          data.map((event) => [event.data.id, event.data.origin, event.data.reason, event.data.changed]),
          [
            [id, "MCP", "colour", ["title", "body"]],
            [other, "API", null, ["title", "body", "meta_description"]]
          ]
        )
        const cases: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
          ["", {}],
          ["per_page=1", { per_page: 1 }],
          [`after=${data[0]!.id}`, { after: data[0]!.id }],
          [`types=article.changed&site_id=${session.siteId}`, { types: "article.changed", site_id: session.siteId }],
          ["types=backlink.acquired", { types: "backlink.acquired" }]
        ]
        for (const [query, args] of cases) {
          const viaRest = yield* eventsOf(session.key, query)
          assert.deepStrictEqual(yield* toolData(session, "list_events", args), viaRest, query)
        }
        // A refusal is the same refusal.
        const refused = yield* feed(session.key, "types=article.deleted")
        assert.deepStrictEqual(yield* toolError(session, "list_events", { types: "article.deleted" }), refused.body)
      })
    )

    it.effect(
      "a save in the editor and a restore on the web page are article.changed with origin editor; a restore through the API has origin API",
      () =>
        Effect.gen(function* () {
          const { app, browser, accountId, key } = yield* signedInAccount()
          const id = yield* app.makeArticle(yield* app.makeSite(accountId), {
            title: "Pipes",
            meta_description: "Old meta",
            body: "<p>Frozen pipes.</p>"
          })
          const page = yield* open(browser, `/articles/${id}`)
          const save = (title: string, reason: string) =>
            Effect.tap(
              browser.post(`/articles/${id}/edit`, {
                csrf: page.csrf,
                title,
                meta_description: "Old meta",
                body: "<p>Frozen pipes.</p>",
                reason
              }),
              (reply) => assert.strictEqual(reply.status, 303, reply.text)
            )
          yield* save("Pipes in winter", "seasonal")
          yield* save("Pipes in spring", "spring")
          const restored = yield* browser.post(`/articles/${id}/revisions/1/restore`, { csrf: page.csrf })
          assert.strictEqual(restored.status, 303, restored.text)
          const viaApi = yield* request("POST", `/api/v1/articles/${id}/revisions/2/restore`, {
            key,
            json: { reason: "spring again" }
          })
          assert.strictEqual(viaApi.status, 200, viaApi.text)
          const { data } = yield* eventsOf(key)
          assert.deepStrictEqual(
            data.map((event) => [event.type, event.data.revision, event.data.origin, event.data.title]),
            [
              ["article.changed", 1, "editor", "Pipes in winter"],
              ["article.changed", 2, "editor", "Pipes in spring"],
              ["article.changed", 3, "editor", "Pipes in winter"],
              ["article.changed", 4, "API", "Pipes in spring"]
            ]
          )
          assert.deepStrictEqual(
            data.map((event) => event.data.reason),
            ["seasonal", "spring", "Restored revision 1", "spring again"]
          )
          assert.deepStrictEqual(
            data.map((event) => event.data.changed),
            [["title", "body", "meta_description"], ["title"], ["title"], ["title"]]
          )
        })
    )

    it.effect(
      "an import is article.changed and article.published for the articles it creates, backlink.acquired for its backlinks, only article.changed for an article it revises, article.published for one it publishes, and nothing for what it leaves unchanged",
      () =>
        Effect.gen(function* () {
          const account = makeAccount()
          yield* importValue({ accounts: [account] }, "first.json")
          const { key } = yield* keyOfImported(account.email)
          const first = yield* eventsOf(key)
          assert.deepStrictEqual(countsOf(first.data), {
            "article.changed": 2,
            "article.published": 2,
            "backlink.acquired": 2
          })
          for (const event of first.data.filter((e) => e.type === "article.changed")) {
            assert.deepStrictEqual([event.data.origin, event.data.reason], ["rewrite", "import first.json"])
          }
          const site = account.sites[0]!
          const sources = first.data.filter((e) => e.type === "backlink.acquired").map((e) => e.data.source_url)
          assert.sameMembers(
            sources,
            site.backlinks.map((backlink) => backlink.source_url)
          )

          // The same file again: nothing changes, so nothing happens.
          yield* importValue({ accounts: [account] }, "again.json")
          assert.deepStrictEqual(yield* eventsOf(key, `after=${first.next_after}`), {
            data: [],
            next_after: first.next_after
          })

          // A revised title, and a new draft article: article.changed for each, nothing published.
          const draft = makeArticle(site.website_url, { status: "draft", published_at: null })
          const revised = withFirstArticle(account, (article) => ({ ...article, title: "A better title" }))
          const withDraft = {
            accounts: [
              {
                ...account,
                sites: [
                  { ...revised.accounts[0]!.sites[0]!, articles: [...revised.accounts[0]!.sites[0]!.articles, draft] }
                ]
              }
            ]
          }
          yield* importValue(withDraft, "second.json")
          const second = yield* eventsOf(key, `after=${first.next_after}`)
          assert.deepStrictEqual(
            second.data.map((event) => [event.type, event.data.url, event.data.changed]),
            [
              ["article.changed", site.articles[0]!.url, ["title"]],
              ["article.changed", draft.url, ["title", "body", "meta_description"]]
            ]
          )

          // The draft published: article.changed is not written (its content is the same), article.published is.
          const published = {
            accounts: [
              {
                ...withDraft.accounts[0]!,
                sites: [
                  {
                    ...withDraft.accounts[0]!.sites[0]!,
                    articles: [
                      ...withDraft.accounts[0]!.sites[0]!.articles.slice(0, -1),
                      { ...draft, status: "published", published_at: "2026-11-01T08:00:00Z" }
                    ]
                  }
                ]
              }
            ]
          }
          yield* importValue(published, "third.json")
          const third = yield* eventsOf(key, `after=${second.next_after}`)
          assert.deepStrictEqual(
            third.data.map((event) => [event.type, event.data.url, event.data.status]),
            [["article.published", draft.url, "published"]]
          )
        })
    )
  })

  describe("no change without its event, no event without its change", () => {
    it.effect(
      "a change whose transaction fails at its commit leaves neither the change nor an event; the next change commits with its event",
      () =>
        Effect.gen(function* () {
          const { key, id } = yield* articleOfAccount()
          const liftCheck = yield* refuseRevisionsAtCommit
          const failed = yield* patchArticle(id, key, { title: "Never saved", reason: FAILS_AT_COMMIT })
          yield* liftCheck
          assertError(failed, 500, "internal_error")
          assert.deepStrictEqual(yield* revisionNumbers(id), [])
          assert.deepStrictEqual(yield* eventsOf(key), { data: [], next_after: null })

          yield* saved(id, key, { title: "Saved", reason: "commits" })
          const { data } = yield* eventsOf(key)
          assert.deepStrictEqual(
            data.map((event) => [event.data.title, event.data.reason, event.data.revision]),
            [["Saved", "commits", 1]]
          )
        })
    )

    it.effect(
      `edits while ${onPostgres ? "backends are terminated" : "the database connection is closed"}: each committed change has exactly one event, and every event its change`,
      () =>
        Effect.gen(function* () {
          const faults = yield* DatabaseFaults
          const { key, id } = yield* articleOfAccount("<p>Start.</p>")
          const edit = (n: number) =>
            patchArticle(id, key, { replacements: [{ find: "</p>", replace: ` [e${n}]</p>` }], reason: `edit ${n}` })
          let sending = true
          const breaker = yield* Effect.gen(function* () {
            let broken = 0
            for (let i = 0; i < 10 && sending; i++) {
              yield* Effect.sleep(Duration.millis(yield* Random.nextIntBetween(2, 40)))
              broken += yield* faults.breakConnections
            }
            return broken
          }).pipe(Effect.fork)
          const answers = yield* Effect.forEach(
            Array.from({ length: 16 }, (_, n) => n),
            edit,
            { concurrency: 4 }
          )
          sending = false
          assert.isAbove(yield* Fiber.join(breaker), 0, "no connection was broken")

          const numbers = yield* revisionNumbers(id)
          const listed = yield* answered(feed(key, "per_page=100"))
          assert.strictEqual(listed.status, 200, listed.text)
          const events = (listed.body as Feed).data
          // One event per revision, each naming its revision, and none for the edits that did not commit.
          assert.deepStrictEqual(
            events.map((event) => event.data.revision),
            numbers
          )
          for (const [i, answer] of answers.entries()) {
            const event = events.find((e) => e.data.reason === `edit ${i}`)
            if (answer.status === 200) assert.isDefined(event, `edit ${i} was answered 200`)
            else assert.isAtLeast(answer.status, 500, answer.text)
          }
        }),
      { timeout: 120_000 }
    )

    it.effect("a change whose database dies right after its commit has its event", () =>
      Effect.gen(function* () {
        const faults = yield* DatabaseFaults
        const { key, id } = yield* articleOfAccount()
        const lostBefore = yield* faults.lost
        yield* faults.dieAfterNextCommit
        const answer = yield* patchArticle(id, key, { title: "Committed", reason: "dies after" })
        assert.isAbove(yield* faults.lost, lostBefore, "no statement found its connection dead after the commit")
        assert.strictEqual(answer.status, 200, answer.text)
        const listed = yield* answered(feed(key))
        assert.strictEqual(listed.status, 200, listed.text)
        assert.deepStrictEqual(
          (listed.body as Feed).data.map((event) => [event.data.title, event.data.reason]),
          [["Committed", "dies after"]]
        )
      })
    )

    it.effect("a refused change or a preview leaves no event: 412, 422 protected_link_violation, 409, dry_run", () =>
      Effect.gen(function* () {
        const { key, id } = yield* articleOfAccount(protectedBody)
        assertError(
          yield* request("PATCH", `/api/v1/articles/${id}`, {
            key,
            json: { title: "Stale" },
            headers: { "if-match": '"7"' }
          }),
          412,
          "precondition_failed"
        )
        assertError(yield* putArticle(id, key, { body: "<p>No link.</p>" }), 422, "protected_link_violation")
        assertError(
          yield* patchArticle(id, key, { replacements: [{ find: PARTNER.text, replace: "friend" }] }),
          422,
          "protected_link_violation"
        )
        assertError(
          yield* patchArticle(id, key, { replacements: [{ find: "absent", replace: "x" }] }),
          409,
          "replacement_conflict"
        )
        const preview = yield* request("PATCH", `/api/v1/articles/${id}?dry_run=true`, { key, json: { title: "P" } })
        assert.strictEqual(preview.status, 200, preview.text)
        const unchanged = yield* patchArticle(id, key, { replacements: [{ find: "Second", replace: "Second" }] })
        assert.strictEqual(unchanged.status, 200, unchanged.text)
        assert.deepStrictEqual(yield* eventsOf(key), { data: [], next_after: null })
      })
    )
  })

  describe("reading the feed", () => {
    it.effect(
      "paging with after = the last answer's next_after gives every event once, oldest first, changes made between pages included",
      () =>
        Effect.gen(function* () {
          const { app, accountId, key, id } = yield* articleOfAccount()
          const other = yield* app.makeArticle(yield* app.makeSite(accountId))
          for (let n = 0; n < 5; n++) yield* saved(n % 2 === 0 ? id : other, key, { title: `Title ${n}` })
          const seen: Array<FeedEvent> = []
          let after: string | null = null
          for (let page = 0; page < 10; page++) {
            const answer: Feed = yield* eventsOf(key, `per_page=2${after === null ? "" : `&after=${after}`}`)
            seen.push(...answer.data)
            // A change while the client pages: the next pages bring it.
            if (page === 1) yield* saved(id, key, { title: "Between pages" })
            if (answer.data.length === 0) {
              assert.strictEqual(answer.next_after, after)
              break
            }
            assert.strictEqual(answer.next_after, answer.data[answer.data.length - 1]!.id)
            after = answer.next_after
          }
          const all = (yield* eventsOf(key)).data
          assert.lengthOf(all, 6)
          assert.deepStrictEqual(seen, all)
          const numbers = all.map(numberOf)
          assert.deepStrictEqual(
            numbers,
            [...numbers].sort((a, b) => a - b)
          )
          assert.strictEqual(new Set(numbers).size, numbers.length)
          assert.strictEqual(all[5]!.data.title, "Between pages")
        })
    )

    it.effect(
      "types and site_id keep only those events; next_after moves past what they leave out only as far as what they show",
      () =>
        Effect.gen(function* () {
          const account = makeAccount({ sites: [makeSite(), makeSite()] })
          yield* importValue({ accounts: [account] })
          const { key } = yield* keyOfImported(account.email)
          const all = (yield* eventsOf(key)).data
          assert.lengthOf(all, 12)
          const siteIds = [...new Set(all.map((event) => event.data.site_id))]
          assert.lengthOf(siteIds, 2)

          const published = yield* eventsOf(key, "types=article.published")
          assert.deepStrictEqual(
            published.data,
            all.filter((event) => event.type === "article.published")
          )
          assert.strictEqual(published.next_after, published.data[published.data.length - 1]!.id)
          const two = yield* eventsOf(key, "types=backlink.acquired,%20article.published,backlink.acquired")
          assert.deepStrictEqual(
            two.data,
            all.filter((event) => event.type !== "article.changed")
          )
          const ofSite = yield* eventsOf(key, `site_id=${siteIds[1]}&types=backlink.acquired`)
          assert.deepStrictEqual(
            ofSite.data,
            all.filter((event) => event.data.site_id === siteIds[1] && event.type === "backlink.acquired")
          )
          assert.lengthOf(ofSite.data, 2)
          const none = yield* eventsOf(key, `types=backlink.status_changed&after=${all[3]!.id}`)
          assert.deepStrictEqual(none, { data: [], next_after: all[3]!.id })
        })
    )

    it.effect(
      "another account's events are invisible, its event id as after is 422; admin and read-only keys read their own account's events",
      () =>
        Effect.gen(function* () {
          const app = yield* TestApp
          const mine = yield* articleOfAccount()
          const theirs = yield* articleOfAccount()
          yield* saved(mine.id, mine.key, { title: "Mine" })
          yield* saved(theirs.id, theirs.key, { title: "Theirs" })
          const own = (yield* eventsOf(mine.key)).data
          assert.deepStrictEqual(
            own.map((event) => event.data.title),
            ["Mine"]
          )
          const foreign = (yield* eventsOf(theirs.key)).data[0]!
          const refused = yield* feed(mine.key, `after=${foreign.id}`)
          assertError(refused, 422, "validation_error")
          assert.strictEqual(
            refused.body.message,
            `after: ${foreign.id} is not an event of this account from the last 30 days; start without after, or pass the next_after of the last answer.`
          )
          // Its website as a filter finds nothing.
          assert.deepStrictEqual(yield* eventsOf(mine.key, `site_id=${theirs.siteId}`), { data: [], next_after: null })

          const admin = yield* app.makeAccount({ admin: true })
          assert.deepStrictEqual(yield* eventsOf(admin.key), { data: [], next_after: null })
          const keys = yield* ApiKeys
          const readOnly = yield* keys
            .create({ accountId: mine.accountId, name: "reader", isAdmin: false, readOnly: true })
            .pipe(Effect.orDie)
          assert.deepStrictEqual((yield* eventsOf(readOnly.key)).data, own)
        })
    )

    it.effect("an event older than 30 days is no longer listed, as after it is 422, and the upkeep deletes it", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { key, id } = yield* articleOfAccount()
        yield* saved(id, key, { title: "Old" })
        yield* saved(id, key, { title: "Recent" })
        yield* saved(id, key, { title: "New" })
        const [old, recent, latest] = (yield* eventsOf(key)).data
        yield* sql`update events set created_at = now() - interval '31 days' where id = ${numberOf(old!)}`.pipe(
          Effect.orDie
        )
        yield* sql`update events set created_at = now() - interval '29 days' where id = ${numberOf(recent!)}`.pipe(
          Effect.orDie
        )
        assert.deepStrictEqual(
          (yield* eventsOf(key)).data.map((event) => event.id),
          [recent!.id, latest!.id]
        )
        const refused = yield* feed(key, `after=${old!.id}`)
        assertError(refused, 422, "validation_error")
        assert.match(refused.body.message, /^after: evt_\d+ is not an event of this account from the last 30 days/)
        assert.deepStrictEqual((yield* eventsOf(key, `after=${recent!.id}`)).data, [latest])
        // The hourly upkeep deletes it, and only it.
        const pruned = yield* Effect.flatMap(EventsRepo, (repo) => repo.prune).pipe(Effect.provide(EventsRepo.Default))
        assert.isAtLeast(pruned, 1)
        const left = yield* sql<{ readonly id: number }>`select id from events
          where id in (${numberOf(old!)}, ${numberOf(recent!)}, ${numberOf(latest!)}) order by id`.pipe(Effect.orDie)
        assert.deepStrictEqual(
          left.map((row) => row.id),
          [numberOf(recent!), numberOf(latest!)]
        )
      })
    )

    it.effect("a malformed types, after, site_id or per_page is 422 validation_error naming the parameter", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { key } = yield* app.makeAccount()
        const typeNames = "article.changed, article.published, backlink.acquired, backlink.status_changed"
        const cases: ReadonlyArray<readonly [string, string, string?]> = [
          ["types=article.deleted", "types", `unknown event type "article.deleted"; the types are ${typeNames}`],
          ["types=", "types", `name at least one; the types are ${typeNames}`],
          ["types=,", "types", `name at least one; the types are ${typeNames}`],
          ["types=Article.Changed", "types"],
          ["after=42", "after", "must be an event id such as evt_42"],
          ["after=evt_0", "after"],
          ["after=evt_x", "after"],
          ["after=", "after"],
          ["after=evt_999999999", "after", "is not an event of this account"],
          ["site_id=0", "site_id"],
          ["site_id=abc", "site_id"],
          ["site_id=1e3", "site_id"],
          ["per_page=0", "per_page"],
          ["per_page=abc", "per_page"],
          ["per_page=101", "per_page", "must be at most 100"]
        ]
        for (const [query, parameter, says] of cases) {
          const answer = yield* feed(key, query)
          assertError(answer, 422, "validation_error")
          assert.match(answer.body.message, new RegExp(`^${parameter}: `), query)
          if (says !== undefined) assert.include(answer.body.message, says, query)
        }
        assert.strictEqual((yield* feed(key, "per_page=101")).body.limit, 100)
      })
    )
  })
})
