// @tags: engine runtime
import { readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option, TestClock } from "effect"
import { Accounts } from "../src/Auth/Accounts.js"
import { ApiKeys } from "../src/Auth/ApiKeys.js"
import { verifyPassword } from "../src/Auth/Passwords.js"
import { DEMO_EMAIL } from "../src/Demo/Demo.js"
import { extractProtectedLinks } from "../src/Html/ProtectedLinks.js"
import { cbs } from "./support/Cbs.js"
import { embeddedEnv, freePort, startCbs, tempDir, tempFile, waitForLine } from "./support/CbsProcess.js"
import { setNow } from "./support/Clock.js"
import { PATIENCE } from "./support/Eventually.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

const field = (output: string, name: string): string => {
  const match = new RegExp(`^${name}: (\\S+)$`, "m").exec(output)
  assert.isNotNull(match, `no "${name}:" line in:\n${output}`)
  return match![1]!
}

let counter = 0
const newEmail = () => `cli${++counter}@example.com`

const authenticate = (key: string) => Effect.flatMap(ApiKeys, (keys) => keys.authenticate(key))

/** `cbs key create --account email …flags`, which must succeed: its output and the credential its key is. */
const createKey = (email: string, ...flags: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const created = yield* cbs("key", "create", "--account", email, ...flags)
    assert.isTrue(created.ok, created.stderr)
    const credential = yield* authenticate(field(created.stdout, "API key"))
    return { stdout: created.stdout, credential: Option.getOrThrow(credential) }
  })

const createAccount = (email = newEmail()) =>
  Effect.gen(function* () {
    const result = yield* cbs("account", "create", "--email", email, "--name", "Cli Ltd")
    assert.isTrue(result.ok, result.stderr)
    return {
      email,
      accountId: Number(field(result.stdout, "account id")),
      userId: Number(field(result.stdout, "user id"))
    }
  })

const withTempFile = (contents: string) => tempFile("import.json", contents)

const importFile = (email: string, title: string) =>
  JSON.stringify({
    accounts: [
      {
        email,
        name: "Imported Ltd",
        sites: [
          {
            name: "Imported",
            website_url: `https://${email.replace(/\W/g, "")}.example.com`,
            articles: [
              { title, url: `https://imported.example.com/${email}/a`, status: "published", body: "<p>One two</p>" }
            ],
            backlinks: [
              {
                source_url: "https://news.example.org/1",
                target_url: "https://imported.example.com/",
                category: "local"
              }
            ]
          }
        ]
      }
    ]
  })

const TestLive = Layer.mergeAll(Accounts.Default, ApiKeys.Default).pipe(
  Layer.provideMerge(TestDatabaseLive),
  Layer.merge(NodeContext.layer)
)

layer(TestLive)("cbs", (it) => {
  describe("account and key", () => {
    it.effect("account create prints the ids, and key create --account prints a key that authenticates", () =>
      Effect.gen(function* () {
        const account = yield* createAccount()
        const found = yield* Effect.flatMap(Accounts, (accounts) => accounts.findByEmail(account.email))
        assert.isTrue(Option.isSome(found))
        assert.strictEqual(Option.getOrThrow(found).account_id, account.accountId)
        assert.strictEqual(Option.getOrThrow(found).user_id, account.userId)

        const created = yield* cbs("key", "create", "--account", account.email, "--name", "ci")
        assert.isTrue(created.ok, created.stderr)
        const key = field(created.stdout, "API key")
        assert.match(key, /^cbs_/)
        assert.strictEqual(field(created.stdout, "prefix"), key.slice(0, 12))
        const credential = yield* authenticate(key)
        assert.isTrue(Option.isSome(credential))
        assert.strictEqual(Option.getOrThrow(credential).accountId, account.accountId)
        assert.isFalse(Option.getOrThrow(credential).isAdmin)
      })
    )

    it.effect("key create --admin makes an admin key", () =>
      Effect.gen(function* () {
        const account = yield* createAccount()
        assert.isTrue((yield* createKey(account.email, "--admin")).credential.isAdmin)
      })
    )

    it.effect("key create --read-only makes a key that may only read", () =>
      Effect.gen(function* () {
        const account = yield* createAccount()
        const reader = yield* createKey(account.email, "--read-only")
        assert.include(reader.stdout, ", read only")
        assert.isFalse(reader.credential.canWrite)
        assert.isTrue((yield* createKey(account.email)).credential.canWrite)
      })
    )

    it.effect("key revoke --id makes the key stop authenticating", () =>
      Effect.gen(function* () {
        const account = yield* createAccount()
        const created = yield* cbs("key", "create", "--account", account.email)
        const key = field(created.stdout, "API key")
        assert.isTrue(Option.isSome(yield* authenticate(key)))

        const revoked = yield* cbs("key", "revoke", "--id", field(created.stdout, "key id"))
        assert.isTrue(revoked.ok, revoked.stderr)
        assert.isTrue(Option.isNone(yield* authenticate(key)))
      })
    )

    it.effect("key create for an unknown e-mail fails with one line on stderr and prints no key", () =>
      Effect.gen(function* () {
        const result = yield* cbs("key", "create", "--account", "nobody@example.com")
        assert.isFalse(result.ok)
        assert.strictEqual(result.stderr, "cbs: no account has a user with e-mail nobody@example.com")
        assert.notInclude(result.stdout, "API key")
      })
    )

    it.effect("key revoke of an unknown id fails with a clear error", () =>
      Effect.gen(function* () {
        const result = yield* cbs("key", "revoke", "--id", "987654")
        assert.isFalse(result.ok)
        assert.strictEqual(result.stderr, "cbs: no API key has id 987654")
      })
    )

    it.effect("account create with an e-mail already in use fails and creates nothing", () =>
      Effect.gen(function* () {
        const account = yield* createAccount()
        const result = yield* cbs("account", "create", "--email", account.email.toUpperCase(), "--name", "Again")
        assert.isFalse(result.ok)
        assert.match(result.stderr, /^cbs: a user with the e-mail .* already exists$/)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql`select id from users where lower(email) = ${account.email}`
        assert.strictEqual(rows.length, 1)
      })
    )

    it.effect("a missing required option fails without running the command", () =>
      Effect.gen(function* () {
        const result = yield* cbs("account", "create", "--name", "No e-mail")
        assert.isFalse(result.ok)
        assert.include(result.stderr, "--email")
      })
    )
  })

  describe("import", () => {
    it.scoped("import FILE twice creates the records once; the second run changes nothing", () =>
      Effect.gen(function* () {
        const email = newEmail()
        const file = yield* withTempFile(importFile(email, "First title"))
        const first = yield* cbs("import", file)
        assert.isTrue(first.ok, first.stderr)
        assert.match(first.stdout, /articles\s+1 created, 0 updated, 0 unchanged/)

        const second = yield* cbs("import", file)
        assert.isTrue(second.ok, second.stderr)
        assert.match(second.stdout, /accounts\s+0 created, 0 updated, 1 unchanged/)
        assert.match(second.stdout, /articles\s+0 created, 0 updated, 1 unchanged/)
        assert.match(second.stdout, /backlinks\s+0 created, 0 updated, 1 unchanged/)

        const sql = yield* SqlClient.SqlClient
        const [counts] = yield* sql`
          select (select count(*)::int from sites s where s.account_id = u.account_id) as sites,
                 (select count(*)::int from articles a join sites s on s.id = a.site_id
                   where s.account_id = u.account_id) as articles
          from users u where u.email = ${email}`
        assert.deepStrictEqual(counts, { sites: 1, articles: 1 })
      })
    )

    it.scoped(
      "import FILE stores each article it creates as revision 1, origin rewrite, reason import <file name>",
      () =>
        Effect.gen(function* () {
          const email = newEmail()
          const file = yield* withTempFile(importFile(email, "Revised title"))
          const result = yield* cbs("import", file)
          assert.isTrue(result.ok, result.stderr)
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql`
          select a.revision, r.number, r.origin, r.reason, r.title
          from articles a join sites s on s.id = a.site_id join users u on u.account_id = s.account_id
          join article_revisions r on r.article_id = a.id
          where u.email = ${email}`
          assert.deepStrictEqual(rows, [
            { revision: 1, number: 1, origin: "rewrite", reason: "import import.json", title: "Revised title" }
          ])
        })
    )

    it.scoped("import of a bad file fails naming the field and stores nothing", () =>
      Effect.gen(function* () {
        const email = newEmail()
        const file = yield* withTempFile(importFile(email, "x".repeat(300)))
        const result = yield* cbs("import", file)
        assert.isFalse(result.ok)
        assert.strictEqual(
          result.stderr,
          "cbs: accounts[0].sites[0].articles[0].title: must be a string of at most 255 characters, or null"
        )
        const sql = yield* SqlClient.SqlClient
        assert.strictEqual((yield* sql`select id from users where email = ${email}`).length, 0)
      })
    )

    it.scoped("import refusals are one cbs: line naming the field: deep JSON, a NUL in an e-mail or a body", () =>
      Effect.gen(function* () {
        const email = newEmail()
        const deep = importFile(email, "T").replace(
          '"title":"T"',
          `"title":${"[".repeat(100_000)}${"]".repeat(100_000)}`
        )
        const cases = [
          [deep, "cbs: accounts[0].sites[0].articles[0].title[0]: is nested deeper than 64 levels"],
          [importFile(`x\u0000${email}`, "T"), "cbs: accounts[0].email: must not contain NUL (U+0000)"],
          [
            importFile(email, "T").replace("<p>One two</p>", "<p>One\\u0000two</p>"),
            "cbs: accounts[0].sites[0].articles[0].body: must not contain NUL (U+0000)"
          ]
        ] as const
        for (const [contents, line] of cases) {
          const result = yield* cbs("import", yield* withTempFile(contents))
          assert.isFalse(result.ok)
          assert.strictEqual(result.stderr, line)
        }
        const sql = yield* SqlClient.SqlClient
        assert.strictEqual((yield* sql`select id from users where email = ${email}`).length, 0)
      })
    )

    it.effect("import of a missing file fails with one line", () =>
      Effect.gen(function* () {
        const result = yield* cbs("import", join(tmpdir(), "no-such-cbs-file.json"))
        assert.isFalse(result.ok)
        assert.match(result.stderr, /^cbs: cannot read .*no-such-cbs-file\.json/)
      })
    )
  })

  it.effect("audit prune deletes the days of calls before the retention period and keeps the days within it", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const now = Date.now()
      // The command reads the time through Effect's Clock, which is the test clock here.
      yield* TestClock.setTime(now)
      const at = (daysAgo: number) => new Date(now - daysAgo * 86_400_000).toISOString()
      yield* sql`insert into audit_log (at, origin, method, path, status, duration_ms)
        values (${at(100)}::timestamptz, 'API', 'GET', '/api/v1/sites', 200, 1),
               (${at(10)}::timestamptz, 'API', 'GET', '/api/v1/sites', 200, 1)`
      const result = yield* cbs("audit", "prune")
      assert.isTrue(result.ok, result.stderr)
      assert.match(
        result.stdout,
        /^Dropped \d+ days? of calls before \d{4}-\d\d-\d\d and deleted 1 call older than 90 days/m
      )
      const left = yield* sql<{ n: number }>`select count(*)::int as n from audit_log`
      assert.strictEqual(left[0]!.n, 1)
    })
  )

  it.effect("migrate reports the database up to date", () =>
    Effect.gen(function* () {
      const result = yield* cbs("migrate")
      assert.isTrue(result.ok, result.stderr)
      assert.match(result.stdout, /^Database is up to date: \d+ migrations? applied, the latest \d{4}_[a-z0-9_]+\.$/m)
    })
  )

  it.scoped(
    "seed --demo imports two websites with a few dozen articles with protected links, both backlink categories, and prints a working sign-in and key",
    () =>
      Effect.gen(function* () {
        const today = yield* setNow("2026-11-21T12:00:00Z")
        const mediaDir = yield* tempDir("cbs-seed-media-")
        const result = yield* cbs("seed", "--demo").pipe(
          Effect.withConfigProvider(
            ConfigProvider.fromMap(new Map([["MEDIA_DIR", mediaDir]])).pipe(
              ConfigProvider.orElse(() => ConfigProvider.fromEnv())
            )
          )
        )
        assert.isTrue(result.ok, result.stderr)
        assert.strictEqual(field(result.stdout, "Demo sign-in"), DEMO_EMAIL)

        const credential = yield* authenticate(field(result.stdout, "API key"))
        assert.isTrue(Option.isSome(credential))
        const accountId = Option.getOrThrow(credential).accountId

        const sql = yield* SqlClient.SqlClient
        const [user] = yield* sql`select password_hash from users where email = ${DEMO_EMAIL}`
        assert.isTrue(yield* verifyPassword(field(result.stdout, "Password"), user!["password_hash"] as string))

        const sites = yield* sql`select id from sites where account_id = ${accountId} order by id`
        assert.strictEqual(sites.length, 2)
        const siteIds = sites.map((row) => row["id"] as number)
        const articles = yield* sql`
          select status, body, featured_image_url, extract(epoch from published_at)::float8 * 1000 as published_ms
          from articles where site_id in ${sql.in(siteIds)}`
        assert.isAtLeast(articles.length, 24)
        // Most articles have a featured image, stored in the media store as a PNG and addressed where it is served.
        const images = articles.flatMap((row) =>
          row["featured_image_url"] === null ? [] : [row["featured_image_url"]]
        )
        assert.isAtLeast(images.length, articles.length / 2)
        for (const url of images as Array<string>) {
          const name = /^http:\/\/localhost:3000\/media\/([0-9a-f]{64}\.png)$/.exec(url)?.[1]
          assert.isDefined(name, url)
          const bytes = readFileSync(join(mediaDir, name!))
          assert.deepStrictEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47])
        }
        assert.isAtMost(articles.length, 48)
        for (const article of articles) {
          const links = extractProtectedLinks(article["body"] as string)
          assert.isAtLeast(links.length, 1)
          assert.isAtMost(links.length, 3)
          const published = article["published_ms"] as number | null
          if (article["status"] === "published") {
            assert.isTrue(published !== null && published < today && published > today - 130 * 86_400_000)
          }
          if (article["status"] === "scheduled") assert.isTrue(published !== null && published > today)
        }
        assert.deepStrictEqual([...new Set(articles.map((row) => row["status"]))].sort(), [
          "draft",
          "published",
          "scheduled"
        ])
        const categories = yield* sql`
          select site_id, category, count(*)::int as n from backlinks where site_id in ${sql.in(siteIds)}
          group by site_id, category order by site_id, category`
        assert.deepStrictEqual(
          categories.map((row) => [row["site_id"], row["category"]]),
          siteIds.flatMap((id) => [
            [id, "industry"],
            [id, "local"]
          ])
        )
        // Its pages cannot be fetched (.example): a made-up check history, off the schedule. Live ones were found,
        // lost ones lost for a reason (each reason in turn), pending ones not checked yet.
        const health = yield* sql`
          select b.status, b.lost_reason, b.last_checked_at is not null as checked, b.next_check_at,
            (select count(*)::int from backlink_checks c where c.backlink_id = b.id) as checks,
            (select c.outcome from backlink_checks c where c.backlink_id = b.id order by c.checked_at desc limit 1) as last
          from backlinks b where b.site_id in ${sql.in(siteIds)}`
        assert.isTrue(health.every((row) => row["next_check_at"] === null))
        for (const row of health) {
          if (row["status"] === "live") assert.deepInclude(row, { checked: true, last: "found", lost_reason: null })
          if (row["status"] === "pending") assert.deepInclude(row, { checked: false, checks: 0 })
          if (row["status"] === "lost") assert.strictEqual(row["last"], row["lost_reason"])
        }
        assert.deepStrictEqual(
          [...new Set(health.flatMap((row) => (row["status"] === "lost" ? [row["lost_reason"]] : [])))].sort(),
          ["link_removed", "page_not_found", "redirected_away"]
        )
      })
  )
})

// A database of its own: the tests above have seeded the demo data already, these need to see it seeded first.
layer(TestLive)("cbs seed --demo on a database that holds the demo data", (it) => {
  it.effect(
    "keeps every article and the password as they are, stores no revision, and prints the e-mail and a new working key",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const first = yield* cbs("seed", "--demo")
        assert.isTrue(first.ok, first.stderr)
        const password = field(first.stdout, "Password")
        // The demo articles start with their imported content as revision 1.
        const starts = yield* sql<{ revision: number; reason: string | null; n: number }>`
          select a.revision, r.reason, count(*)::int as n
          from articles a join sites s on s.id = a.site_id join users u on u.account_id = s.account_id
          left join article_revisions r on r.article_id = a.id
          where u.email = ${DEMO_EMAIL} group by a.revision, r.reason`
        assert.deepStrictEqual(
          starts.map((row) => [row.revision, row.reason]),
          [[1, "import demo data"]]
        )

        // An edit since the import: article content and its revision counter, as the service would leave them.
        const [article] = yield* sql<{ id: number }>`
          select a.id from articles a join sites s on s.id = a.site_id join users u on u.account_id = s.account_id
          where u.email = ${DEMO_EMAIL} order by a.id limit 1`
        yield* sql`update articles set title = 'Edited since the import', revision = 2 where id = ${article!.id}`
        const stateOf = sql`
          select a.id, a.title, a.body, a.status, a.revision, a.published_at::text, a.xmin::text as version,
            (select count(*)::int from article_revisions r where r.article_id = a.id) as revisions
          from articles a join sites s on s.id = a.site_id join users u on u.account_id = s.account_id
          where u.email = ${DEMO_EMAIL} order by a.id`
        const before = yield* stateOf
        const [hashBefore] = yield* sql`select password_hash from users where email = ${DEMO_EMAIL}`

        const again = yield* cbs("seed", "--demo")
        assert.isTrue(again.ok, again.stderr)
        assert.strictEqual(field(again.stdout, "Demo sign-in"), DEMO_EMAIL)
        assert.include(again.stdout, "The password is unchanged")
        assert.notMatch(again.stdout, /^Password:/m)

        assert.deepStrictEqual(yield* stateOf, before)
        const [hashAfter] = yield* sql`select password_hash from users where email = ${DEMO_EMAIL}`
        assert.deepStrictEqual(hashAfter, hashBefore)
        assert.isTrue(yield* verifyPassword(password, hashAfter!["password_hash"] as string))

        const key = field(again.stdout, "API key")
        assert.notStrictEqual(key, field(first.stdout, "API key"))
        const credential = yield* authenticate(key)
        assert.isTrue(Option.isSome(credential))
        const [owner] = yield* sql`select account_id from users where email = ${DEMO_EMAIL}`
        assert.strictEqual(Option.getOrThrow(credential).accountId, owner!["account_id"])
        // The first key still works too.
        assert.isTrue(Option.isSome(yield* authenticate(field(first.stdout, "API key"))))
      })
  )
})

// --- The real program: `node bin/cbs.js serve` on an empty embedded database --------------------------------------

describe("cbs serve (subprocess)", () => {
  it.live(
    "on an empty embedded database imports the demo data, prints a working API key, and exits on SIGTERM",
    () =>
      Effect.gen(function* () {
        const dataDir = join(yield* tempDir("cbs-serve-test-"), "data")
        const port = yield* freePort
        // No DATABASE_URL: the embedded database, created in the empty DATA_DIR.
        const child = yield* startCbs(["serve"], embeddedEnv(dataDir, { PORT: String(port) }))

        const key = yield* waitForLine(child, /^API key: (cbs_\S+)$/m).pipe(Effect.timeout("150 seconds"))
        const sites = yield* Effect.promise(() =>
          fetch(`http://127.0.0.1:${port}/api/v1/sites`, { headers: { authorization: `Bearer ${key}` } })
        )
        assert.strictEqual(sites.status, 200)
        // Log lines are JSON objects carrying the request id of the request they belong to (read whole: a line is
        // written in one piece but may be read in two).
        const logLine = yield* waitForLine(child, /^(\{.*"request_id".*\})\n/m).pipe(Effect.timeout(PATIENCE))
        const logged = JSON.parse(logLine)
        assert.strictEqual(logged.annotations?.request_id, sites.headers.get("x-request-id"))
        const body = yield* Effect.promise(() => sites.json())
        assert.strictEqual(body.meta.total, 2)
        // No broken image: every featured image of the demo is served, as a PNG, where its address says.
        let served = 0
        for (const site of body.data as ReadonlyArray<{ readonly id: number }>) {
          const list = yield* Effect.promise(() =>
            fetch(`http://127.0.0.1:${port}/api/v1/sites/${site.id}/articles?per_page=100`, {
              headers: { authorization: `Bearer ${key}` }
            }).then((res) => res.json())
          )
          for (const article of list.data as ReadonlyArray<{ readonly featured_image_url: string | null }>) {
            if (article.featured_image_url === null) continue
            const url = new URL(article.featured_image_url)
            assert.strictEqual(url.origin, `http://localhost:${port}`)
            const image = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}${url.pathname}`))
            assert.strictEqual(image.status, 200, article.featured_image_url)
            assert.strictEqual(image.headers.get("content-type"), "image/png")
            yield* Effect.promise(() => image.arrayBuffer())
            served++
          }
        }
        assert.isAtLeast(served, 16)
        const openapi = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`))
        assert.strictEqual(openapi.status, 200)

        child.child.kill("SIGTERM")
        const code = yield* Effect.promise(() => child.exited).pipe(Effect.timeout(PATIENCE))
        assert.strictEqual(code, 0)
      }).pipe(Effect.scoped),
    180_000
  )
})
