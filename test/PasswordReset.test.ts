// @tags: runtime
import { createHash } from "node:crypto"
import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, HashMap, Layer, Logger, LogLevel, Option, TestClock } from "effect"
import { AppConfig } from "../src/Config.js"
import { HttpServerLive } from "../src/Server/Server.js"
import type { Database } from "../src/Sql/Database.js"
import { clockStarts } from "./support/Clock.js"
import { waitUntil } from "./support/Eventually.js"
import { linkIn, Mailbox, mailsTo, nextMail, TestServerWithMailLive } from "./support/Mailbox.js"
import { type Browser, hiddenField, makeBrowser, submitSignIn, withToken } from "./support/McpClient.js"
import { serverWithSettings, TestApp } from "./support/TestServer.js"
import { PASSWORD, signedInAccount } from "./support/WebPages.js"

/**
 * The server runs on the test clock. Each test starts an hour after the previous one, so that no test meets the
 * throttle slots (per client address: every request comes from 127.0.0.1) that another one's requests hold.
 */
const startClock = clockStarts("1 hour")

const NEW_PASSWORD = "a brand new passphrase"

/** Opens "Forgot your password?" (which sets the form's cookie) and asks for a link to `email`. */
const askForLink = (browser: Browser, email: string) =>
  Effect.gen(function* () {
    const form = yield* browser.get("/signin/forgot")
    assert.strictEqual(form.status, 200, form.text)
    return yield* browser.post("/signin/forgot", withToken({ email }, hiddenField(form.text, "csrf")))
  })

/** Opens a reset link and submits its form with `password` (twice, unless `repeat` differs). */
const setPassword = (browser: Browser, link: string, password: string, repeat = password) =>
  Effect.gen(function* () {
    const form = yield* browser.get(link)
    assert.strictEqual(form.status, 200, form.text)
    const fields = { token: hiddenField(form.text, "token") ?? "", password, repeat }
    return yield* browser.post("/signin/reset", withToken(fields, hiddenField(form.text, "csrf")))
  })

const signInStatus = (email: string, password: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    return (yield* submitSignIn(makeBrowser(app.baseUrl), { email, password })).status
  })

/** A new user with a password, whose reset link has been asked for and has arrived. */
const userWithLink = Effect.gen(function* () {
  const app = yield* TestApp
  const account = yield* app.makeAccount({ password: PASSWORD })
  const browser = makeBrowser(app.baseUrl)
  const asked = yield* askForLink(browser, account.email)
  assert.strictEqual(asked.status, 303, asked.text)
  assert.strictEqual(asked.location, "/signin/forgot/sent")
  const mail = yield* nextMail(account.email)
  return { ...account, app, browser, mail, link: linkIn(mail) }
})

layer(TestServerWithMailLive)("password reset", (it) => {
  it.effect("the sign-in page links to it, and asking mails a link that sets a new password once", () =>
    Effect.gen(function* () {
      yield* startClock
      const app = yield* TestApp
      assert.include((yield* makeBrowser(app.baseUrl).get("/signin")).text, '<a href="/signin/forgot">')
      const { email, browser, mail, link } = yield* userWithLink
      assert.strictEqual(mail.subject, "Reset your password")
      // Without PUBLIC_BASE_URL, the service's address is http://localhost:PORT, and SMTP_FROM's default follows it.
      assert.strictEqual(mail.from, "no-reply@localhost")
      const port = new URL(app.baseUrl).port
      assert.isTrue(link.startsWith(`http://localhost:${port}/signin/reset?token=cbs_r_`), link)
      const sent = yield* browser.get("/signin/forgot/sent")
      assert.include(sent.text, "If an account has that e-mail address")
      const form = yield* browser.get(link)
      assert.include(form.text, email)
      assert.include(form.text, 'autocomplete="new-password"')
      const done = yield* setPassword(browser, link, NEW_PASSWORD)
      assert.strictEqual(done.status, 303, done.text)
      assert.strictEqual(done.location, "/signin?reset=done")
      assert.include((yield* browser.get(done.location!)).text, "Your new password is set")
      assert.strictEqual(yield* signInStatus(email, NEW_PASSWORD), 303)
      assert.strictEqual(yield* signInStatus(email, PASSWORD), 401)
      // The link works once: opened again, or its form sent again, it is refused with a page that says why.
      const again = yield* browser.get(link)
      assert.strictEqual(again.status, 410)
      assert.include(again.text, "used already")
      assert.include(again.text, 'href="/signin/forgot"')
      const token = new URL(link).searchParams.get("token")!
      const csrf = hiddenField(form.text, "csrf")
      const resent = yield* browser.post(
        "/signin/reset",
        withToken({ token, password: "x".repeat(12), repeat: "x".repeat(12) }, csrf)
      )
      assert.strictEqual(resent.status, 410)
      assert.strictEqual(yield* signInStatus(email, NEW_PASSWORD), 303)
    })
  )

  it.effect("the link's token is stored only as the hash of its secret part", () =>
    Effect.gen(function* () {
      yield* startClock
      const { link, accountId } = yield* userWithLink
      const [selector, verifier] = new URL(link).searchParams.get("token")!.replace("cbs_r_", "").split(".")
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ selector: string; verifier_hash: Uint8Array }>`
        select r.selector, r.verifier_hash from password_resets r join users u on u.id = r.user_id
        where u.account_id = ${accountId}`.pipe(Effect.orDie)
      assert.strictEqual(rows.length, 1)
      assert.strictEqual(rows[0]!.selector, selector)
      assert.deepStrictEqual(Buffer.from(rows[0]!.verifier_hash), createHash("sha256").update(verifier!).digest())
      // A link with the right selector and a wrong secret is no link at all.
      const forged = link.replace(verifier!, `${verifier!.slice(0, -1)}${verifier!.endsWith("A") ? "B" : "A"}`)
      assert.strictEqual((yield* makeBrowser((yield* TestApp).baseUrl).get(forged)).status, 404)
    })
  )

  it.effect("an unknown e-mail gets the same answer and no mail", () =>
    Effect.gen(function* () {
      yield* startClock
      const app = yield* TestApp
      const unknown = `nobody-${crypto.randomUUID()}@example.com`
      const browser = makeBrowser(app.baseUrl)
      const forUnknown = yield* askForLink(browser, unknown)
      // Mails are sent one request after another: once the known e-mail's has come, the unknown one's request is done.
      const known = yield* userWithLink
      assert.strictEqual(forUnknown.status, 303)
      assert.strictEqual(forUnknown.location, "/signin/forgot/sent")
      assert.strictEqual(known.mail.to.length, 1)
      assert.deepStrictEqual(yield* mailsTo(unknown), [])
    })
  )

  it.effect("a link is refused 30 minutes after it was asked for, and sets nothing", () =>
    Effect.gen(function* () {
      yield* startClock
      const { email, browser, link } = yield* userWithLink
      const form = yield* browser.get(link)
      yield* TestClock.adjust("31 minutes")
      const expired = yield* browser.get(link)
      assert.strictEqual(expired.status, 410)
      assert.include(expired.text, "expired")
      const fields = { token: hiddenField(form.text, "token")!, password: NEW_PASSWORD, repeat: NEW_PASSWORD }
      const sent = yield* browser.post("/signin/reset", withToken(fields, hiddenField(form.text, "csrf")))
      assert.strictEqual(sent.status, 410)
      assert.strictEqual(yield* signInStatus(email, PASSWORD), 303)
    })
  )

  it.effect("a reset ends the user's browser sessions, and nothing else: API keys and other users' sessions stay", () =>
    Effect.gen(function* () {
      yield* startClock
      const signedIn = yield* signedInAccount()
      const other = yield* signedInAccount()
      const asked = yield* askForLink(makeBrowser(signedIn.app.baseUrl), signedIn.email)
      assert.strictEqual(asked.status, 303)
      const link = linkIn(yield* nextMail(signedIn.email))
      assert.strictEqual((yield* signedIn.browser.get("/sites")).status, 200)
      assert.strictEqual((yield* setPassword(makeBrowser(signedIn.app.baseUrl), link, NEW_PASSWORD)).status, 303)
      const after = yield* signedIn.browser.get("/sites")
      assert.strictEqual(after.status, 303)
      assert.match(after.location ?? "", /^\/signin/)
      assert.strictEqual((yield* other.browser.get("/sites")).status, 200)
      const api = yield* signedIn.app.fetch("/api/v1/sites", { headers: { "x-api-key": signedIn.key } })
      assert.strictEqual(api.status, 200)
    })
  )

  it.effect("a new password must follow the rule and be typed twice the same; the link stays usable meanwhile", () =>
    Effect.gen(function* () {
      yield* startClock
      const { email, browser, link } = yield* userWithLink
      const short = yield* setPassword(browser, link, "short")
      assert.strictEqual(short.status, 422)
      assert.include(short.text, "at least 8 characters")
      const different = yield* setPassword(browser, link, NEW_PASSWORD, `${NEW_PASSWORD}!`)
      assert.strictEqual(different.status, 422)
      assert.include(different.text, "not the same")
      assert.strictEqual(yield* signInStatus(email, PASSWORD), 303)
      assert.strictEqual((yield* setPassword(browser, link, NEW_PASSWORD)).status, 303)
    })
  )

  describe("cross-site request forgery", () => {
    it.effect(
      "asking without the form's token and cookie, or from another origin, is refused with 403 and sends nothing",
      () =>
        Effect.gen(function* () {
          yield* startClock
          const app = yield* TestApp
          const forged = yield* app.makeAccount({ password: PASSWORD })
          const browser = makeBrowser(app.baseUrl)
          const noToken = yield* browser.post("/signin/forgot", { email: forged.email })
          assert.strictEqual(noToken.status, 403)
          assert.include(noToken.text, "did not come from this site")
          const form = yield* browser.get("/signin/forgot")
          const fields = withToken({ email: forged.email }, hiddenField(form.text, "csrf"))
          const otherOrigin = yield* browser.post("/signin/forgot", fields, { origin: "http://evil.example" })
          assert.strictEqual(otherOrigin.status, 403)
          // Mails are sent in order: once a later one has come, the refused requests are known to have sent none.
          yield* userWithLink
          assert.deepStrictEqual(yield* mailsTo(forged.email), [])
        })
    )

    it.effect("setting a password without the form's token is refused with 403, and the link still works", () =>
      Effect.gen(function* () {
        yield* startClock
        const { app, email, link } = yield* userWithLink
        const token = new URL(link).searchParams.get("token")!
        const forged = yield* makeBrowser(app.baseUrl).post("/signin/reset", {
          token,
          password: "chosen by someone else",
          repeat: "chosen by someone else"
        })
        assert.strictEqual(forged.status, 403)
        assert.strictEqual(yield* signInStatus(email, PASSWORD), 303)
        assert.strictEqual((yield* setPassword(makeBrowser(app.baseUrl), link, NEW_PASSWORD)).status, 303)
      })
    )
  })

  it.effect("a fourth link for one e-mail within 15 minutes is refused with 429, known e-mail or not", () =>
    Effect.gen(function* () {
      yield* startClock
      const app = yield* TestApp
      const { email } = yield* app.makeAccount({ password: PASSWORD })
      for (const address of [email, `nobody-${crypto.randomUUID()}@example.com`]) {
        const browser = makeBrowser(app.baseUrl)
        for (let i = 0; i < 3; i++) assert.strictEqual((yield* askForLink(browser, address)).status, 303)
        const refused = yield* askForLink(browser, address.toUpperCase())
        assert.strictEqual(refused.status, 429, address)
        assert.include(refused.text, "wait 15 minutes")
      }
      yield* TestClock.adjust("16 minutes")
      assert.strictEqual((yield* askForLink(makeBrowser(app.baseUrl), email)).status, 303)
    })
  )

  it.scoped("the access log writes a reset link's address without its token", () =>
    Effect.gen(function* () {
      yield* startClock
      const { link } = yield* userWithLink
      const logged: Array<string> = []
      const collect = Logger.make(({ annotations }) => {
        const url = HashMap.get(annotations, "http.url")
        if (Option.isSome(url)) logged.push(String(url.value))
      })
      const database = Layer.succeedContext(yield* Effect.context<Database>())
      const context = yield* Layer.build(
        HttpServerLive({ port: 0, host: "127.0.0.1" }).pipe(
          Layer.provide(database),
          Layer.provide(Logger.replace(Logger.defaultLogger, collect)),
          Layer.provide(Logger.minimumLogLevel(LogLevel.Info))
        )
      )
      const address = Context.get(context, HttpServer.HttpServer).address
      const port = address._tag === "TcpAddress" ? address.port : 0
      const url = new URL(link)
      url.port = String(port)
      assert.strictEqual((yield* makeBrowser(url.origin).get(url)).status, 200)
      yield* waitUntil(
        "the request is logged",
        Effect.sync(() => logged.length > 0)
      )
      assert.deepStrictEqual(logged, ["/signin/reset?token=[redacted]"])
    })
  )

  it.scoped("SMTP_FROM names the mail's sender", () =>
    Effect.gen(function* () {
      yield* startClock
      const app = yield* TestApp
      const { email } = yield* app.makeAccount({ password: PASSWORD })
      const { url } = yield* Mailbox
      const from = "Content Service <help@example.com>"
      const baseUrl = yield* serverWithSettings({ SMTP_URL: url, SMTP_FROM: from })
      assert.strictEqual((yield* askForLink(makeBrowser(baseUrl), email)).status, 303)
      assert.strictEqual((yield* nextMail(email)).from, from)
    })
  )

  it.effect("an SMTP_URL that is not an smtp:// or smtps:// address stops the service at start, saying so", () =>
    Effect.gen(function* () {
      for (const url of ["mail.example.com", "https://mail.example.com", "smtp://"]) {
        const read = yield* AppConfig.pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SMTP_URL", url]]))),
          Effect.flip
        )
        assert.include(String(read), "SMTP_URL", url)
      }
    })
  )

  it.scoped("without SMTP_URL, the page says to ask the operator and names the command", () =>
    Effect.gen(function* () {
      yield* startClock
      const baseUrl = yield* serverWithSettings({})
      const page = yield* makeBrowser(baseUrl).get("/signin/forgot")
      assert.strictEqual(page.status, 200)
      assert.include(page.text, "cbs account password --email")
      assert.notInclude(page.text, "<form")
      assert.include((yield* makeBrowser(baseUrl).get("/signin")).text, '<a href="/signin/forgot">')
    })
  )
})
