// @tags: runtime
import { randomBytes, scryptSync } from "node:crypto"
import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Logger, LogLevel, Option, TestClock } from "effect"
import { PasswordChecks } from "../src/Auth/PasswordChecks.js"
import { PasswordHashParameters, verifyPassword } from "../src/Auth/Passwords.js"
import type { Unavailable } from "../src/Domain/Errors.js"
import type { AccountId } from "../src/Domain/Ids.js"
import { HttpServerLive } from "../src/Server/Server.js"
import type { Database } from "../src/Sql/Database.js"
import { clockStarts } from "./support/Clock.js"
import { waitUntil } from "./support/Eventually.js"
import {
  type Browser,
  hiddenField,
  makeBrowser,
  signInFormToken,
  submitSignIn,
  withToken
} from "./support/McpClient.js"
import { serverWithSettings, TestApp, TestServerLive } from "./support/TestServer.js"
import { PASSWORD } from "./support/WebPages.js"

/**
 * Under `layer(...)` the server runs on the test clock, which starts at the epoch. Each test starts at the real time
 * and an hour after the previous one: all requests come from 127.0.0.1, and no test may meet the slots that another
 * one's wrong passwords hold for that address.
 */
const startClock = clockStarts("1 hour")

/** A user with a password, and a browser of its own. */
const makeUser = Effect.gen(function* () {
  const app = yield* TestApp
  const email = `signin-${randomBytes(4).toString("hex")}@example.com`
  const { accountId } = yield* app.makeAccount({ email, password: PASSWORD })
  return { app, email, accountId, browser: makeBrowser(app.baseUrl) }
})

/** At the start of a test: the clock started, and a new user. */
const newUser = Effect.andThen(startClock, makeUser)

/** `times` sign-ins with the wrong credentials `attempt(i)` gives, each refused 401. */
const refused = (
  browser: Browser,
  times: number,
  attempt: (i: number) => { readonly email: string; readonly password: string }
) =>
  Effect.forEach(
    Array.from({ length: times }, (_, i) => i),
    (i) => Effect.map(submitSignIn(browser, attempt(i)), (reply) => assert.strictEqual(reply.status, 401, reply.text))
  )

/**
 * A sign-in with `email`'s right password, which must be answered `status`, with a session cookie set exactly when it
 * signs in (303): the reply.
 */
const rightPassword = (browser: Browser, email: string, status: 303 | 429) =>
  Effect.gen(function* () {
    const reply = yield* submitSignIn(browser, { email, password: PASSWORD })
    assert.strictEqual(reply.status, status, reply.text)
    assert.strictEqual(browser.jar.has("cbs_session"), status === 303)
    return reply
  })

const count = (table: "web_sessions") =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`select count(*)::int as n from ${sql(table)}`.pipe(
      Effect.map((rows) => rows[0]!.n),
      Effect.orDie
    )
  )

/** A hash as the service made them before N=2^17: scrypt N=2^15, r=8, p=1. */
const hashAtN15 = (password: string) => {
  const salt = randomBytes(16)
  const key = scryptSync(password, salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 })
  return `scrypt$32768$8$1$${salt.toString("base64url")}$${key.toString("base64url")}`
}

/** The service with its own password hash parameters (not the test run's cheaper ones), on this file's database. */
const productionServer = Effect.gen(function* () {
  const database = Layer.succeedContext(yield* Effect.context<Database>())
  const context = yield* Layer.build(
    HttpServerLive({ port: 0, host: "127.0.0.1" }).pipe(
      // Over the test's context, which the server's fibers inherit and which holds the test run's cheaper ones.
      Layer.provide(Layer.succeed(PasswordHashParameters, PasswordHashParameters.defaultValue())),
      Layer.provide(database),
      Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
    )
  )
  const address = Context.get(context, HttpServer.HttpServer).address
  return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : yield* Effect.dieMessage("not TCP")
})

const storedHash = (accountId: AccountId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ password_hash: string }>`select password_hash from users where account_id = ${accountId}`.pipe(
      Effect.map((rows) => rows[0]!.password_hash),
      Effect.orDie
    )
  )

layer(TestServerLive)("sign-in", (it) => {
  describe("cross-site request forgery", () => {
    it.effect(
      "the form carries a token tied to its cookie; posted from this site's origin, or with none, it signs in",
      () =>
        Effect.gen(function* () {
          const { app, email, browser } = yield* newUser
          const form = yield* browser.get("/signin")
          const cookie = form.headers.getSetCookie().find((line) => line.startsWith("cbs_signin="))!
          assert.match(cookie, /HttpOnly/i)
          assert.match(cookie, /SameSite=Lax/i)
          assert.match(cookie, /Path=\/signin/)
          assert.match(hiddenField(form.text, "csrf") ?? "", /^[A-Za-z0-9_-]{40,}$/)
          // The service's public origin, and the loopback name the browser used.
          const port = new URL(app.baseUrl).port
          for (const origin of [`http://localhost:${port}`, app.baseUrl]) {
            const signedIn = yield* submitSignIn(makeBrowser(app.baseUrl), { email, password: PASSWORD }, { origin })
            assert.strictEqual(signedIn.status, 303, `${origin}: ${signedIn.text}`)
          }
          assert.strictEqual((yield* submitSignIn(browser, { email, password: PASSWORD })).status, 303)
        })
    )

    it.effect("a POST from another origin is refused with 403 even with the right token and cookie", () =>
      Effect.gen(function* () {
        const { email, browser } = yield* newUser
        const before = yield* count("web_sessions")
        for (const origin of ["http://evil.example", "null", "http://localhost:1"]) {
          const reply = yield* submitSignIn(browser, { email, password: PASSWORD }, { origin })
          assert.strictEqual(reply.status, 403, origin)
          assert.isUndefined(reply.location)
          assert.isFalse(browser.jar.has("cbs_session"))
        }
        assert.strictEqual(yield* count("web_sessions"), before)
      })
    )

    it.effect(
      "a POST without the pre-session cookie, or with a missing, wrong or foreign token, is refused with 403",
      () =>
        Effect.gen(function* () {
          const { app, email, browser } = yield* newUser
          const fields = { email, password: PASSWORD }
          // An auto-submitted form on another site: no cookie of the sign-in form, no token.
          const forged = yield* browser.post("/signin", fields)
          assert.strictEqual(forged.status, 403, forged.text)
          // The answer is the form again, with a new cookie and token, so a real user can go on.
          const token = hiddenField(forged.text, "csrf")
          const other = makeBrowser(app.baseUrl)
          const foreignToken = yield* signInFormToken(other)
          for (const csrf of [undefined, "x".repeat(43), foreignToken]) {
            const reply = yield* browser.post("/signin", withToken(fields, csrf))
            assert.strictEqual(reply.status, 403, String(csrf))
            assert.isFalse(browser.jar.has("cbs_session"))
          }
          // The token of a pre-session is no good with another pre-session's cookie.
          const withoutCookie = makeBrowser(app.baseUrl)
          assert.strictEqual((yield* withoutCookie.post("/signin", withToken(fields, token))).status, 403)
          const signedIn = yield* browser.post("/signin", withToken(fields, token))
          assert.strictEqual(signedIn.status, 303, signedIn.text)
        })
    )
  })

  describe("what the form takes", () => {
    it.effect("an e-mail or a password holding NUL re-shows the form with 422 and a message, never a 500", () =>
      Effect.gen(function* () {
        const { email, browser } = yield* newUser
        const before = yield* count("web_sessions")
        for (const fields of [
          { email: `a\u0000${email}`, password: PASSWORD },
          { email, password: `${PASSWORD}\u0000` }
        ]) {
          const reply = yield* submitSignIn(browser, fields)
          assert.strictEqual(reply.status, 422, reply.text)
          assert.include(reply.text, 'action="/signin"')
          assert.include(reply.text, "NUL")
          assert.notInclude(reply.text, "\u0000")
        }
        assert.strictEqual(yield* count("web_sessions"), before)
      })
    )
  })

  describe("where sign-in leads", () => {
    it.effect("a return_to outside ASCII is answered 303 with a percent-encoded Location, not a 500", () =>
      Effect.gen(function* () {
        const { app, email, browser } = yield* newUser
        const before = yield* count("web_sessions")
        const reply = yield* submitSignIn(browser, { email, password: PASSWORD, return_to: "/sites/€?q=é" })
        assert.strictEqual(reply.status, 303, reply.text)
        assert.strictEqual(reply.location, "/sites/%E2%82%AC?q=%C3%A9")
        assert.strictEqual(yield* count("web_sessions"), before + 1)
        // Signed in, the sign-in address sends straight on, encoded the same way.
        const again = yield* browser.get(`/signin?return_to=${encodeURIComponent("/sites/€")}`)
        assert.strictEqual(again.status, 303)
        assert.strictEqual(again.location, "/sites/%E2%82%AC")
        // Signed out, the form carries the path in the form it will be sent in.
        const form = yield* makeBrowser(app.baseUrl).get(`/signin?return_to=${encodeURIComponent("/sites/€")}`)
        assert.strictEqual(hiddenField(form.text, "return_to"), "/sites/%E2%82%AC")
      })
    )

    it.effect("signing in at /signin without return_to lands on the websites page, and /signin then links there", () =>
      Effect.gen(function* () {
        const { email, browser } = yield* newUser
        const reply = yield* submitSignIn(browser, { email, password: PASSWORD })
        assert.strictEqual(reply.status, 303, reply.text)
        assert.strictEqual(reply.location, "/sites")
        const sites = yield* browser.get(reply.location!)
        assert.strictEqual(sites.status, 200)
        assert.include(sites.text, "<h1>Websites</h1>")
        const again = yield* browser.get("/signin")
        assert.strictEqual(again.status, 200)
        assert.include(again.text, email)
        assert.include(again.text, '<a href="/sites">')
      })
    )

    it.effect("sign-in only returns to a path on this site", () =>
      Effect.gen(function* () {
        const { app, email } = yield* newUser
        for (const returnTo of ["//evil.example/x", "https://evil.example/", "/\\evil.example"]) {
          const reply = yield* submitSignIn(makeBrowser(app.baseUrl), {
            email,
            password: PASSWORD,
            return_to: returnTo
          })
          assert.strictEqual(reply.status, 303)
          assert.strictEqual(reply.location, "/sites")
        }
      })
    )

    it.effect("a return_to whose dot segments resolve to //host is dropped, never sent on as a network path", () =>
      Effect.gen(function* () {
        const { email, browser } = yield* newUser
        const reply = yield* submitSignIn(browser, { email, password: PASSWORD, return_to: "/a/../..//evil.example/" })
        assert.strictEqual(reply.status, 303)
        assert.notInclude(reply.location ?? "", "evil.example")
      })
    )
  })

  describe("throttling", () => {
    it.effect("after 10 wrong passwords for an e-mail within 15 minutes, even the right password waits", () =>
      Effect.gen(function* () {
        const { email, browser } = yield* newUser
        yield* refused(browser, 10, (i) => ({ email, password: `wrong ${i}` }))
        const throttled = yield* submitSignIn(browser, { email: email.toUpperCase(), password: PASSWORD })
        assert.strictEqual(throttled.status, 429)
        assert.include(throttled.text, "wait")
        assert.isFalse(browser.jar.has("cbs_session"))
        yield* TestClock.adjust("16 minutes")
        yield* rightPassword(browser, email, 303)
      })
    )

    it.effect("60 wrong passwords sent at once check at most 10, and the right password after them waits", () =>
      Effect.gen(function* () {
        const { email, browser } = yield* newUser
        const csrf = yield* signInFormToken(browser)
        const replies = yield* Effect.all(
          Array.from({ length: 60 }, (_, i) =>
            browser.post("/signin", withToken({ email, password: `guess ${i}` }, csrf))
          ),
          { concurrency: "unbounded" }
        )
        const statuses = replies.map((reply) => reply.status)
        const checked = statuses.filter((status) => status === 401).length
        assert.isAtMost(checked, 10)
        assert.isAbove(checked, 0)
        assert.strictEqual(statuses.filter((status) => status === 429).length, 60 - checked)
        yield* rightPassword(browser, email, 429)
      })
    )

    it.effect("a right password gives back only its own slot: the wrong ones before it still count", () =>
      Effect.gen(function* () {
        const { email, browser } = yield* newUser
        yield* refused(browser, 9, (i) => ({ email, password: `wrong ${i}` }))
        assert.strictEqual((yield* submitSignIn(browser, { email, password: PASSWORD })).status, 303)
        const other = makeBrowser((yield* TestApp).baseUrl)
        assert.strictEqual((yield* submitSignIn(other, { email, password: "wrong 9" })).status, 401)
        assert.strictEqual((yield* submitSignIn(other, { email, password: PASSWORD })).status, 429)
      })
    )

    it.effect("wrong passwords for 10 different e-mails from one client address lock that address", () =>
      Effect.gen(function* () {
        const { browser } = yield* newUser
        yield* refused(browser, 10, (i) => ({ email: `nobody-${i}@example.com`, password: "wrong" }))
        const { email } = yield* makeUser
        assert.strictEqual((yield* submitSignIn(browser, { email, password: PASSWORD })).status, 429)
      })
    )
  })

  describe("password hashes", () => {
    it.scoped(
      "an N=2^15 hash is replaced by an N=2^17 one at the next sign-in, and a wrong password changes nothing",
      () =>
        Effect.gen(function* () {
          const { email, accountId } = yield* newUser
          const sql = yield* SqlClient.SqlClient
          const old = hashAtN15(PASSWORD)
          yield* sql`update users set password_hash = ${old} where account_id = ${accountId}`.pipe(Effect.orDie)
          const browser = makeBrowser(yield* productionServer)
          assert.strictEqual((yield* submitSignIn(browser, { email, password: "wrong" })).status, 401)
          assert.strictEqual(yield* storedHash(accountId), old)
          assert.strictEqual((yield* submitSignIn(browser, { email, password: PASSWORD })).status, 303)
          const upgraded = yield* storedHash(accountId)
          assert.match(upgraded, /^scrypt\$131072\$8\$1\$/)
          assert.isTrue(yield* verifyPassword(PASSWORD, upgraded))
          // Signing in again keeps the new hash as it is.
          const again = makeBrowser(yield* productionServer)
          assert.strictEqual((yield* submitSignIn(again, { email, password: PASSWORD })).status, 303)
          assert.strictEqual(yield* storedHash(accountId), upgraded)
        })
    )
  })

  describe("password checks under load", () => {
    it.scoped(
      "while every password check is taken and the waiting room is full, a sign-in is answered 503 with Retry-After and the form, never queued",
      () =>
        Effect.gen(function* () {
          const { email, browser } = yield* newUser
          const checks = yield* PasswordChecks
          const release = yield* Deferred.make<void>()
          // The test's own "checks" take every permit and every place in the waiting room, one after another.
          const fillers: Array<Fiber.RuntimeFiber<void, Unavailable>> = []
          for (;;) {
            const filler = yield* Effect.forkScoped(checks.run(Deferred.await(release)))
            yield* waitUntil(
              "the check is running or waiting",
              Effect.map(Fiber.status(filler), (status) => status._tag !== "Running")
            )
            if (Option.isSome(yield* Fiber.poll(filler))) break
            fillers.push(filler)
          }
          assert.isAbove(fillers.length, 1)
          const refused = yield* submitSignIn(browser, { email, password: PASSWORD })
          assert.strictEqual(refused.status, 503, refused.text)
          assert.strictEqual(refused.headers.get("retry-after"), "1")
          assert.include(refused.text, "try again")
          assert.isFalse(browser.jar.has("cbs_session"))
          // Once the checks are done, the same sign-in goes through: the refused one took no throttle slot.
          yield* Deferred.succeed(release, undefined)
          for (const filler of fillers) yield* Fiber.join(filler)
          yield* rightPassword(browser, email, 303)
        })
    )

    it.scoped(
      "sign-ins sent at once with PASSWORD_CHECKS=1 are each answered, signed in (303) or told to retry (503 with Retry-After), never 500",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const users = yield* Effect.all(Array.from({ length: 10 }, () => makeUser))
          const baseUrl = yield* serverWithSettings({ PASSWORD_CHECKS: "1" })
          const replies = yield* Effect.all(
            users.map(({ email }) => submitSignIn(makeBrowser(baseUrl), { email, password: PASSWORD })),
            { concurrency: "unbounded" }
          )
          for (const reply of replies) {
            assert.include([303, 503], reply.status, reply.text)
            if (reply.status === 503) assert.strictEqual(reply.headers.get("retry-after"), "1")
          }
          assert.isTrue(replies.some((reply) => reply.status === 303))
        })
    )
  })
})
