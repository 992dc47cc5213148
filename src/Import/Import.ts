import { Readable } from "node:stream"
import { SqlClient } from "@effect/sql"
import { Effect, Option, Stream } from "effect"
import { Articles } from "../Articles/Articles.js"
import { articleEventRows } from "../Articles/EventRows.js"
import { Accounts } from "../Auth/Accounts.js"
import { verifyPassword } from "../Auth/Passwords.js"
import { backlinkEventRows } from "../Backlinks/EventRows.js"
import type { AccountId, ArticleId, BacklinkId, SiteId } from "../Domain/Ids.js"
import { Events } from "../Events/Events.js"
import { type Batch, batches, type PreparedBatch, prepareBatch } from "./Batches.js"
import { check } from "./Check.js"
import type { ImportAccount, ImportSite } from "./ImportFile.js"
import type { ImportRefused } from "./ImportRefused.js"
import { readJsonItems } from "./JsonItems.js"
import { ImportRepo, type Outcome } from "./Repo.js"

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

/** An import file: opened once for each of the two readings, `size` bytes long (for progress). */
export interface ImportSource {
  readonly open: () => Readable
  readonly size: number
  /** Where the data came from, for the revisions' reason (`import <name>`). */
  readonly name: string
}

/**
 * How far an import is: `checking` the file (`done` of `total` bytes read), then `writing` it (`done` of `total`
 * records written), in one transaction that is committed only at the end.
 */
export interface ImportProgress {
  readonly phase: "checking" | "writing"
  readonly done: number
  readonly total: number
}

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

/** What an import did that its events tell: ids of the articles revised and published, of the backlinks created. */
interface Happened {
  readonly changed: Array<ArticleId>
  readonly published: Array<ArticleId>
  readonly acquired: Array<BacklinkId>
}

/** How many records one statement of an import's events covers. */
const EVENT_BATCH = 5_000

const inBatches = <A>(ids: ReadonlyArray<A>, record: (ids: ReadonlyArray<A>) => Effect.Effect<void>) =>
  Effect.forEach(
    Array.from({ length: Math.ceil(ids.length / EVENT_BATCH) }, (_, i) =>
      ids.slice(i * EVENT_BATCH, (i + 1) * EVENT_BATCH)
    ),
    record,
    { discard: true }
  )

export class Importer extends Effect.Service<Importer>()("Import/Import", {
  dependencies: [ImportRepo.Default, Accounts.Default, Articles.Default, Events.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ImportRepo
    const accounts = yield* Accounts
    const articles = yield* Articles
    const sql = yield* SqlClient.SqlClient
    const events = yield* Events
    const articleEvents = articleEventRows(sql)
    const backlinkEvents = backlinkEventRows(sql)

    /** Finds the account by its user's e-mail (any case) or creates it; brings its name and password up to date. */
    const account = Effect.fn("Importer.account")(function* (input: ImportAccount) {
      const found = yield* repo.findUser(input.email)
      if (Option.isNone(found)) {
        const { accountId } = yield* accounts
          .create({ email: input.email, name: input.name, password: Option.fromNullable(input.password) })
          .pipe(Effect.catchTag("EmailTaken", Effect.die))
        return { accountId, outcome: "created" as Outcome }
      }
      const user = found.value
      let outcome: Outcome = "unchanged"
      if (user.account_name !== input.name) {
        yield* accounts.rename(user.account_id, input.name)
        outcome = "updated"
      }
      // Hashes are salted: compare the password itself, so that importing the same file again writes nothing.
      const password = input.password
      if (password != null) {
        const same = user.password_hash !== null && (yield* verifyPassword(password, user.password_hash))
        if (!same) {
          yield* accounts.setPassword(user.user_id, password)
          outcome = "updated"
        }
      }
      return { accountId: user.account_id, outcome }
    })

    const site = Effect.fn("Importer.site")(function* (accountId: AccountId, input: ImportSite) {
      const written = yield* repo.upsertSite({
        account_id: accountId,
        name: input.name ?? null,
        website_url: input.website_url,
        language: input.language ?? null,
        country: input.country ?? null,
        geographic_scope: input.geographic_scope ?? null,
        industry: input.industry ?? null
      })
      return { siteId: written.id, outcome: written.outcome }
    })

    /**
     * Writes a batch; each article it creates or changes gets a revision. The rows written, with which were created
     * (a row already as given is not written).
     */
    const writeBatch = Effect.fn("Importer.writeBatch")(function* (
      batch: PreparedBatch,
      reason: string,
      happened: Happened
    ) {
      if (batch.kind === "backlinks") {
        const rows = yield* repo.upsertBacklinks(batch.rows)
        for (const row of rows) if (row.inserted) happened.acquired.push(row.id)
        return rows
      }
      const rows = yield* repo.upsertArticles(batch.rows)
      const revised = yield* articles.storeRevisions(
        rows.map((row) => row.id),
        "rewrite",
        reason
      )
      happened.changed.push(...revised)
      for (const row of rows) if (row.published) happened.published.push(row.id)
      return rows
    })

    /**
     * The import's events, recorded last in its transaction (Events.record): the articles it revised or published,
     * the backlinks it created; EVENT_BATCH at a time.
     */
    const recordEvents = (happened: Happened) =>
      Effect.all([
        inBatches(happened.changed, (ids) => events.record("article.changed", articleEvents.changed(ids))),
        inBatches(happened.published, (ids) => events.record("article.published", articleEvents.published(ids))),
        inBatches(happened.acquired, (ids) => events.record("backlink.acquired", backlinkEvents.acquired(ids)))
      ])

    /**
     * Imports an import file in one transaction: all of it or, when any field is bad, none of it. The file is read
     * twice as a stream, never whole: first to check every record (nothing is written when one is bad), then to
     * write the records in batches, so that memory holds one batch, not the file. Idempotent on (account e-mail,
     * website URL, article URL, backlink source URL + target URL): a record already as given is not written at
     * all. An article it creates, or whose title, body, meta description or featured image it changes, gets a
     * revision with origin `rewrite` and the reason `import <source name>`.
     */
    const importSource = Effect.fn("Importer.importSource")(function* (
      source: ImportSource,
      progress: (progress: ImportProgress) => Effect.Effect<void> = () => Effect.void
    ) {
      const reason = `import ${source.name}`
      const plan = yield* check(readJsonItems(source.open), (bytes) =>
        progress({ phase: "checking", done: bytes, total: source.size })
      )
      const total = plan.articles + plan.backlinks
      const counts = tally()
      const happened: Happened = { changed: [], published: [], acquired: [] }
      const write = Effect.gen(function* () {
        const siteIds = new Map<string, SiteId>()
        for (const [a, input] of plan.file.accounts.entries()) {
          const { accountId, outcome } = yield* account(input)
          counts.add("accounts", outcome)
          for (const [s, siteInput] of input.sites.entries()) {
            const { siteId, outcome } = yield* site(accountId, siteInput)
            counts.add("sites", outcome)
            siteIds.set(`${a} ${s}`, siteId)
          }
        }
        let done = 0
        // The checking is done by now: each batch is prepared (its bodies sanitised) while the one before it is
        // being written, so that the work here and the database's overlap.
        yield* readJsonItems(source.open).pipe(
          Stream.mapAccum(undefined as Batch | undefined, batches),
          Stream.flattenIterables,
          Stream.mapEffect((batch) => prepareBatch(siteIds.get(`${batch.account} ${batch.site}`)!, batch)),
          Stream.buffer({ capacity: 1 }),
          Stream.runForEach((batch) =>
            Effect.gen(function* () {
              const rows = yield* writeBatch(batch, reason, happened)
              const created = rows.filter((row) => row.inserted).length
              counts.add(batch.kind, "created", created)
              counts.add(batch.kind, "updated", rows.length - created)
              counts.add(batch.kind, "unchanged", batch.rows.length - rows.length)
              done += batch.rows.length
              yield* progress({ phase: "writing", done, total })
            })
          )
        )
      })
      // Suspended: what happened is known only once the records are written.
      yield* Effect.zipRight(
        write,
        Effect.suspend(() => recordEvents(happened))
      ).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      return counts.summary()
    })

    /** Imports the value of an import file (as parsed from JSON); `source` names where it came from. */
    const importValue = (input: unknown, source: string): Effect.Effect<ImportSummary, ImportRefused> =>
      importJson(JSON.stringify(input) ?? "", source)

    /** Imports the text of an import file (JSON); `source` names where it came from. */
    const importJson = (text: string, source: string): Effect.Effect<ImportSummary, ImportRefused> => {
      const bytes = Buffer.from(text, "utf8")
      return importSource({ open: () => Readable.from([bytes]), size: bytes.length, name: source })
    }

    return { importSource, importValue, importJson }
  })
}) {}
