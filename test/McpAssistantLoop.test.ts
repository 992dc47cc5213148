// @tags: runtime
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ArticleId } from "../src/Domain/Ids.js"
import { putArticle } from "./support/Http.js"
import { connectClient, sdkToolData } from "./support/McpSdkClient.js"
import { newMcpUser } from "./support/McpSession.js"
import { TestApp, TestServerLive } from "./support/TestServer.js"

/** The brand name as the articles misspell it, and as it is spelt. */
const WRONG = "Acme Plumming"
const RIGHT = "Acme Plumbing"

interface Article {
  readonly data: { readonly id: ArticleId; readonly body: string; readonly revision: number }
  readonly preview?: { readonly changed: boolean; readonly diff: string }
}
interface Listed<A> {
  readonly data: ReadonlyArray<A>
}

layer(TestServerLive)("an assistant's loop over MCP", (it) => {
  it.scoped(
    "search a misspelt name, preview and apply the fix in each hit, list the revisions, restore the version before",
    () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const user = yield* newMcpUser
        const client = yield* connectClient(user.provider)
        const call = <A>(name: string, args: Record<string, unknown>) =>
          Effect.map(sdkToolData(client, name, args), (data) => data as A)
        const search = (q: string) =>
          call<Listed<{ readonly id: ArticleId; readonly match: string }>>("list_articles", { site_id: siteId, q })

        // The website as its people wrote it (revision 1 of each, through the API): two articles name the brand
        // wrongly in their text; one has it only in a link's address, one has the two words apart.
        const siteId = yield* app.makeSite(user.accountId, { language: "en" })
        const bodies = [
          `<p>Call ${WRONG} for a leaking tap.</p><p>${WRONG} also fits boilers.</p>`,
          `<p>Why ${WRONG} fixes pipes before winter.</p>`,
          `<p>See <a href="https://example.com/acme-plumming">our team</a>.</p>`,
          "<p>Acme makes taps; plumming is not a word.</p>"
        ]
        const ids: Array<ArticleId> = []
        for (const body of bodies) {
          const id = yield* app.makeArticle(siteId)
          assert.strictEqual((yield* putArticle(id, user.key, { body })).status, 200)
          ids.push(id)
        }

        // 1. Find the articles that name it, each with an excerpt.
        const hits = yield* search(`"${WRONG}"`)
        assert.sameMembers(
          hits.data.map((hit) => hit.id),
          ids.slice(0, 2)
        )
        for (const hit of hits.data) assert.include(hit.match, WRONG)

        // 2. In each hit: read it, preview the fix, then apply it on the revision read, once however often sent.
        for (const hit of hits.data) {
          const read = yield* call<Article>("get_article", { article_id: hit.id })
          const fix = {
            article_id: hit.id,
            replacements: [{ find: WRONG, replace: RIGHT, all: true }],
            reason: "Spell the brand name right"
          }
          const preview = yield* call<Article>("update_article", { ...fix, dry_run: true })
          assert.isTrue(preview.preview?.changed)
          assert.include(preview.preview?.diff, `+`)
          assert.notInclude(preview.data.body, WRONG)
          const applied = yield* call<Article>("update_article", {
            ...fix,
            if_match: `"${read.data.revision}"`,
            idempotency_key: `fix-brand-${hit.id}`
          })
          assert.strictEqual(applied.data.revision, read.data.revision + 1)
        }
        assert.lengthOf((yield* search(`"${WRONG}"`)).data, 0)
        assert.lengthOf((yield* search(`"${RIGHT}"`)).data, 2)

        // 3. Look back: the first article's newest revision is the assistant's change of its body.
        const first = ids[0]!
        const history = yield* call<
          Listed<{ readonly number: number; readonly origin: string; readonly changed: ReadonlyArray<string> }>
        >("list_revisions", { article_id: first })
        assert.deepStrictEqual(
          history.data.map(({ number, origin }) => ({ number, origin })),
          [
            { number: 2, origin: "MCP" },
            { number: 1, origin: "API" }
          ]
        )
        assert.deepStrictEqual(history.data[0]!.changed, ["body"])

        // 4. Undo it: read the version before, preview its restore, then restore it.
        const before = yield* call<{ readonly data: { readonly body: string } }>("get_revision", {
          article_id: first,
          revision: 1
        })
        const restore = { article_id: first, revision: 1, reason: "Undo the brand fix" }
        const dry = yield* call<Article>("restore_revision", { ...restore, dry_run: true })
        // The article as the restore would make it; nothing saved, so the restore still applies on revision 2.
        assert.strictEqual(dry.data.revision, 3)
        assert.include(dry.data.body, WRONG)
        const restored = yield* call<Article>("restore_revision", { ...restore, if_match: '"2"' })
        assert.strictEqual(restored.data.body, before.data.body)
        assert.strictEqual(restored.data.revision, 3)
        assert.deepStrictEqual(
          (yield* search(`"${WRONG}"`)).data.map((hit) => hit.id),
          [first]
        )
      })
  )
})
