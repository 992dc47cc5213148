import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { RevisionsRepo } from "./Articles/RevisionsRepo.js"
import { storedLinks } from "./Articles/StoredLinks.js"
import { AccountsRepo } from "./Auth/AccountsRepo.js"
import { hashPassword, verifyPassword } from "./Auth/Passwords.js"
import type { AccountId, SiteId } from "./Domain/Ids.js"
import type { ImportRefused } from "./Import/ImportRefused.js"
import { type PreparedAccount, type PreparedSite, parseJson, prepare } from "./Import/Prepare.js"
import { ImportRepo, type Outcome } from "./Import/Repo.js"

export interface Counts {
  readonly created: number
  readonly updated: number
  readonly unchanged: number
}

/** What an import did, per kind of record. */
export interface ImportSummary {
  readonly accounts: Counts
  readonly sites: Counts
  readonly articles: Counts
  readonly backlinks: Counts
}

type Kind = keyof ImportSummary

/** Articles written per statement: few round trips for a large file, and far below PostgreSQL's parameter limit. */
const ARTICLE_BATCH = 200

const tally = () => {
  const counts: Record<Kind, Record<Outcome, number>> = {
    accounts: { created: 0, updated: 0, unchanged: 0 },
    sites: { created: 0, updated: 0, unchanged: 0 },
    articles: { created: 0, updated: 0, unchanged: 0 },
    backlinks: { created: 0, updated: 0, unchanged: 0 }
  }
  return {
    add: (kind: Kind, outcome: Outcome, n = 1) => {
      counts[kind][outcome] += n
    },
    summary: (): ImportSummary => structuredClone(counts)
  }
}

export class Importer extends Effect.Service<Importer>()("Import", {
  dependencies: [ImportRepo.Default, AccountsRepo.Default, RevisionsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ImportRepo
    const accounts = yield* AccountsRepo
    const revisions = yield* RevisionsRepo
    const sql = yield* SqlClient.SqlClient

    /** Finds the account by its user's e-mail (any case) or creates it; brings its name and password up to date. */
    const account = Effect.fn("Importer.account")(function* (input: PreparedAccount) {
      const found = yield* repo.findUser(input.email)
      if (Option.isNone(found)) {
        const passwordHash = input.password == null ? null : yield* hashPassword(input.password)
        const accountId = yield* accounts.insertAccount(input.name)
        yield* accounts.insertUser({
          account_id: accountId,
          email: input.email,
          name: input.name,
          password_hash: passwordHash,
          is_admin: false
        })
        return { accountId, outcome: "created" as Outcome }
      }
      const user = found.value
      let outcome: Outcome = "unchanged"
      if (user.account_name !== input.name) {
        yield* accounts.renameAccount(user.account_id, input.name)
        outcome = "updated"
      }
      // Hashes are salted: compare the password itself, so that importing the same file again writes nothing.
      const password = input.password
      if (password != null) {
        const same = user.password_hash !== null && (yield* verifyPassword(password, user.password_hash))
        if (!same) {
          yield* accounts.setPassword(user.user_id, yield* hashPassword(password))
          outcome = "updated"
        }
      }
      return { accountId: user.account_id, outcome }
    })

    const site = Effect.fn("Importer.site")(function* (
      accountId: AccountId,
      input: PreparedSite,
      reason: string,
      add: (kind: Kind, outcome: Outcome, n?: number) => void
    ) {
      const written = yield* repo.upsertSite({
        account_id: accountId,
        name: input.name ?? null,
        website_url: input.website_url,
        language: input.language ?? null,
        country: input.country ?? null,
        geographic_scope: input.geographic_scope ?? null,
        industry: input.industry ?? null
      })
      add("sites", written.outcome)
      const siteId: SiteId = written.id
      for (let start = 0; start < input.articles.length; start += ARTICLE_BATCH) {
        const batch = input.articles.slice(start, start + ARTICLE_BATCH)
        const rows = yield* repo.upsertArticles(
          batch.map((article) => ({
            site_id: siteId,
            title: article.title ?? null,
            url: article.url,
            status: article.status ?? null,
            published_at: article.published_at ?? null,
            target_keyword: article.target_keyword ?? null,
            meta_description: article.meta_description ?? null,
            featured_image_url: article.featured_image_url ?? null,
            body: article.body,
            word_count: article.word_count,
            ...storedLinks(article.body, article.protected_links)
          }))
        )
        yield* revisions.storeCurrent(
          rows.map((row) => row.id),
          "rewrite",
          reason
        )
        const created = rows.filter((row) => row.inserted).length
        add("articles", "created", created)
        add("articles", "updated", rows.length - created)
        add("articles", "unchanged", batch.length - rows.length)
      }
      for (const backlink of input.backlinks) {
        const row = yield* repo.upsertBacklink({
          site_id: siteId,
          acquired_at: backlink.acquired_at ?? null,
          source_domain: backlink.source_domain ?? null,
          source_url: backlink.source_url,
          target_url: backlink.target_url,
          anchor_text: backlink.anchor_text ?? null,
          anchor_type: backlink.anchor_type ?? null,
          status: backlink.status ?? null,
          category: backlink.category
        })
        add("backlinks", row.outcome)
      }
    })

    /**
     * Imports the value of an import file (`ImportFileJson`, as parsed from JSON) in one transaction: all of it or,
     * when any field is bad, none of it. Idempotent on (account e-mail, website URL, article URL, backlink source
     * URL + target URL): a record already as given is not written at all. An article it creates, or whose title,
     * body, meta description or featured image it changes, gets a revision with origin `rewrite` and the reason
     * `import <source>`, `source` naming where the data came from (the file's base name).
     */
    const importValue = Effect.fn("Importer.importValue")(function* (input: unknown, source: string) {
      const reason = `import ${source}`
      const file = yield* prepare(input)
      const counts = tally()
      yield* Effect.gen(function* () {
        for (const input of file.accounts) {
          const { accountId, outcome } = yield* account(input)
          counts.add("accounts", outcome)
          for (const s of input.sites) yield* site(accountId, s, reason, counts.add)
        }
      }).pipe(sql.withTransaction, Effect.orDie)
      return counts.summary()
    })

    /** Imports the text of an import file (JSON); `source` as for `importValue`. */
    const importJson = (text: string, source: string): Effect.Effect<ImportSummary, ImportRefused> =>
      Effect.flatMap(parseJson(text), (input) => importValue(input, source))

    return { importValue, importJson }
  })
}) {}
