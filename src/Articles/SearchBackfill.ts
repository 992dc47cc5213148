import { Effect, Layer } from "effect"
import { bodyText } from "../Html/WordCount.js"
import { ArticlesRepo } from "./Repo.js"
import { Sanitizer } from "./Sanitizer.js"

/** Articles read per statement. */
const BATCH = 200

/**
 * Reads the body text of the articles stored before search existed (migrations/0017_article_search.sql), which a
 * migration cannot do: the text is the one the service's own HTML reading finds (Html/WordCount). Every article
 * written since carries its text from its write. It goes in batches along the id (articles_body_text_missing_idx):
 * each article's text is stored only if the article is still at the revision read and still without text, so
 * several instances doing it at once, or a write meanwhile, leave the right text (at worst an article is read
 * twice). Until an article has its text, a search finds it by its title and target keyword only. The number read.
 */
export const readMissingTexts = Effect.gen(function* () {
  const repo = yield* ArticlesRepo
  const sanitizer = yield* Sanitizer
  const textOf = (body: string) =>
    Effect.map(sanitizer.body(body), (result) => (result._tag === "Ok" ? result.text : bodyText(body).text))
  let after = 0
  let read = 0
  for (;;) {
    const rows = yield* repo.withoutText(after, BATCH)
    if (rows.length === 0) return read
    for (const row of rows) yield* repo.saveText(row.id, row.revision, yield* textOf(row.body))
    after = rows[rows.length - 1]!.id
    read += rows.length
  }
})

/** The running service reads the missing texts in the background after it starts (see readMissingTexts). */
export const SearchBackfillLive = Layer.scopedDiscard(
  Effect.forkScoped(
    readMissingTexts.pipe(
      Effect.tap((read) =>
        read > 0 ? Effect.logInfo(`Search: read the body text of ${read} article(s) stored before search`) : Effect.void
      ),
      Effect.catchAllCause((cause) =>
        Effect.logError("Reading the body text of earlier articles failed; it resumes at the next start", cause)
      )
    )
  )
)
