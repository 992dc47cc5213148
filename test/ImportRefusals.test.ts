// @tags: engine runtime
import { Readable } from "node:stream"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_BODY_CHARACTERS, MAX_BODY_ELEMENTS } from "../src/Html/Bounds.js"
import { Importer } from "../src/Import/Import.js"
import { MAX_RECORD_BYTES } from "../src/Import/JsonPosition.js"
import {
  accountWithArticle,
  ImportTestLive,
  makeAccount,
  makeArticle,
  makeBacklink,
  makeSite,
  refusal,
  snapshot,
  unique
} from "./support/ImportFiles.js"

/** None of the accounts with these e-mails is stored. */
const assertNoAccounts = (emails: ReadonlyArray<string>) =>
  Effect.map(snapshot(emails), (stored) => assert.strictEqual(stored.accounts.length, 0, emails.join(", ")))

layer(ImportTestLive)("Importer", (it) => {
  describe("a bad file is refused whole, naming the first bad field, and stores nothing", () => {
    it.effect("a bad published_at deep inside the second account", () =>
      Effect.gen(function* () {
        const good = makeAccount()
        const site = makeSite()
        const bad = makeAccount({
          sites: [
            makeSite(),
            {
              ...site,
              articles: [
                makeArticle(site.website_url),
                makeArticle(site.website_url, { published_at: "2026-02-30T08:00:00Z" })
              ]
            }
          ]
        })
        const message = yield* refusal({ accounts: [good, bad] })
        assert.match(message, /^accounts\[1\]\.sites\[1\]\.articles\[1\]\.published_at: must be an RFC 3339 timestamp/)
        const stored = yield* snapshot([good.email, bad.email])
        assert.strictEqual(stored.accounts.length, 0)
      })
    )

    it.effect("an unknown anchor_type", () =>
      Effect.gen(function* () {
        const site = makeSite()
        const account = makeAccount({
          sites: [
            {
              ...site,
              backlinks: [makeBacklink(site.website_url), makeBacklink(site.website_url, { anchor_type: "keyword" })]
            }
          ]
        })
        const message = yield* refusal({ accounts: [account] })
        assert.match(message, /^accounts\[0\]\.sites\[0\]\.backlinks\[1\]\.anchor_type: must be one of exact_match, /)
        yield* assertNoAccounts([account.email])
      })
    )

    it.effect("an article without url", () =>
      Effect.gen(function* () {
        const site = makeSite()
        const { url: _, ...withoutUrl } = makeArticle(site.website_url)
        const account = makeAccount({ sites: [{ ...site, articles: [withoutUrl] }] })
        const message = yield* refusal({ accounts: [account] })
        assert.strictEqual(message, "accounts[0].sites[0].articles[0].url: is missing")
        yield* assertNoAccounts([account.email])
      })
    )

    it.effect("an unknown key", () =>
      Effect.gen(function* () {
        const account = makeAccount({ sites: [makeSite({ colour: "blue" })] })
        const message = yield* refusal({ accounts: [account] })
        assert.match(message, /^accounts\[0\]\.sites\[0\]\.colour: is unexpected/)
        yield* assertNoAccounts([account.email])
      })
    )

    it.effect("a body with <script>, naming the body and the construct", () =>
      Effect.gen(function* () {
        const good = makeAccount()
        const bad = accountWithArticle({ body: "<p>Hi</p><script>alert(1)</script>" })
        const message = yield* refusal({ accounts: [good, bad] })
        assert.strictEqual(message, "accounts[1].sites[0].articles[0].body: disallowed HTML: <script> element")
        yield* assertNoAccounts([good.email, bad.email])
      })
    )

    it.effect("the same article URL twice in a website", () =>
      Effect.gen(function* () {
        const site = makeSite()
        const article = makeArticle(site.website_url)
        const account = makeAccount({ sites: [{ ...site, articles: [article, { ...article, title: "Other" }] }] })
        const message = yield* refusal({ accounts: [account] })
        assert.strictEqual(
          message,
          "accounts[0].sites[0].articles[1].url: repeats accounts[0].sites[0].articles[0].url"
        )
      })
    )

    it.effect("text that is not JSON", () =>
      Effect.gen(function* () {
        const importer = yield* Importer
        const error = yield* Effect.flip(importer.importJson('{ "accounts": [ ', "broken.json"))
        assert.match(error.message, /^the file is not valid JSON \(/)
      })
    )

    it.effect("JSON that is not an import file", () =>
      Effect.gen(function* () {
        assert.strictEqual(yield* refusal([1, 2]), 'must be an object such as { "accounts": [] }')
        assert.strictEqual(yield* refusal({}), "accounts: is missing")
      })
    )
  })

  describe("an import is as strict and as bounded as the API", () => {
    it.effect("a NUL anywhere is refused naming the field: an e-mail, a body, a title", () =>
      Effect.gen(function* () {
        const cases = [
          [makeAccount({ email: `a\u0000${unique()}@example.com` }), "accounts[0].email"],
          [accountWithArticle({ body: "<p>a\u0000b</p>" }), "accounts[0].sites[0].articles[0].body"],
          [accountWithArticle({ title: "a\u0000" }), "accounts[0].sites[0].articles[0].title"]
        ] as const
        for (const [account, path] of cases) {
          assert.strictEqual(yield* refusal({ accounts: [account] }), `${path}: must not contain NUL (U+0000)`)
          // PostgreSQL text cannot hold NUL: the e-mail is looked up without it.
          yield* assertNoAccounts([account.email.replace("\u0000", "")])
        }
      })
    )

    it.effect("a body over the API's bounds (characters, elements) is refused naming it, with the bound", () =>
      Effect.gen(function* () {
        for (const [body, words] of [
          [`<p>${"x".repeat(MAX_BODY_CHARACTERS)}</p>`, `must be at most ${MAX_BODY_CHARACTERS} characters`],
          ["<p>x".repeat(MAX_BODY_ELEMENTS + 1), `must have at most ${MAX_BODY_ELEMENTS} HTML elements`]
        ] as const) {
          const account = accountWithArticle({ body })
          const message = yield* refusal({ accounts: [account] })
          assert.isTrue(message.startsWith(`accounts[0].sites[0].articles[0].body: ${words}`), message)
          yield* assertNoAccounts([account.email])
        }
      })
    )

    it.effect("JSON nested deeper than 64 levels is refused naming where, not a stack overflow", () =>
      Effect.gen(function* () {
        const account = accountWithArticle()
        const text = JSON.stringify({ accounts: [account] }).replace(
          '"title":"How to fix a dripping tap"',
          `"title":${'{"a":'.repeat(1_000_000)}1${"}".repeat(1_000_000)}`
        )
        const message = yield* Effect.flatMap(Importer, (importer) => importer.importJson(text, "deep.json")).pipe(
          Effect.flip,
          Effect.map((error) => error.message)
        )
        assert.strictEqual(message, "accounts[0].sites[0].articles[0].title.a: is nested deeper than 64 levels")
        yield* assertNoAccounts([account.email])
      })
    )

    it.effect("a record larger than the bound is refused while it is read: an endless body is read no further", () =>
      Effect.gen(function* () {
        const email = `endless${unique()}@example.com`
        let read = 0
        async function* endless() {
          yield Buffer.from(
            `{"accounts":[{"email":"${email}","name":"E","sites":[{"website_url":"https://endless.example","articles":[{"url":"https://endless.example/a","body":"<p>`
          )
          const chunk = Buffer.alloc(64 * 1024, "x")
          for (;;) {
            read += chunk.length
            yield chunk
          }
        }
        const importer = yield* Importer
        const message = yield* importer
          .importSource({ open: () => Readable.from(endless()), size: 0, name: "endless.json" })
          .pipe(
            Effect.flip,
            Effect.map((error) => error.message)
          )
        assert.strictEqual(
          message,
          `accounts[0].sites[0].articles[0]: is larger than ${MAX_RECORD_BYTES} bytes of JSON; an article body may have at most ${MAX_BODY_CHARACTERS} characters`
        )
        assert.isAtMost(read, MAX_RECORD_BYTES + 2 * 64 * 1024)
        yield* assertNoAccounts([email])
      })
    )
  })

  it.effect("a refusal does not echo a huge unknown key in full", () =>
    Effect.gen(function* () {
      const message = yield* refusal({ accounts: [{ ...makeAccount(), ["k".repeat(10_000)]: 1 }] })
      assert.match(message, /^accounts\[0\]\.kkk/)
      assert.isBelow(message.length, 500)
    })
  )
})
