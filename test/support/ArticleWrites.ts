import { SqlClient } from "@effect/sql"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { Credential } from "../../src/Domain/Credential.js"
import type { AccountId, ArticleId } from "../../src/Domain/Ids.js"

/** An error answer: its status, its error code, and a message. */
export const assertError = (
  result: { readonly status: number; readonly body: Record<string, unknown> },
  status: number,
  error: string
) => {
  assert.strictEqual(result.status, status, JSON.stringify(result.body))
  assert.strictEqual(result.body["error"], error)
  assert.isString(result.body["message"])
}

/** The body stored in the database, read directly. */
export const storedBody = (id: ArticleId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ body: string }>`select body from articles where id = ${id}`.pipe(Effect.orDie)
    return rows[0]!.body
  })

/** The numbers of an article's revisions, in order. */
export const revisionNumbers = (id: ArticleId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{
      number: number
    }>`select number from article_revisions where article_id = ${id} order by number`.pipe(Effect.orDie)
    return rows.map((row) => Number(row.number))
  })

/** A protected link as `protected_links` lists it, and a body that carries it. */
export const PARTNER = { type: "backlink", href: "https://partner.example.com/", text: "partner site" }
export const protectedBody =
  '<p>Intro with <a data-service-protected="backlink" href="https://partner.example.com/">partner site</a> in it.</p><p>Second paragraph.</p>'

/** A signed-in user's credential for the account's first user, as the editor would have it. */
export const userCredentialOf = (accountId: AccountId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: number }>`select id from users where account_id = ${accountId}`.pipe(Effect.orDie)
    const credential: Credential = { kind: "user", id: Number(rows[0]!.id), accountId, isAdmin: false, canWrite: true }
    return credential
  })
