import { Effect, Option } from "effect"
import { unifiedDiff } from "../Domain/BodyDiff.js"
import type { Credential } from "../Domain/Credential.js"
import { NotFound } from "../Domain/Errors.js"
import type { ArticleId } from "../Domain/Ids.js"
import { pageMeta } from "../Domain/Pagination.js"
import type { RevisionsQuery } from "../Domain/Queries.js"
import type { RevisionDetail } from "../Domain/Revision.js"
import { readScope } from "../Domain/Scope.js"
import { ArticlesRepo } from "./Repo.js"
import { RevisionsRepo } from "./RevisionsRepo.js"

/** An article's revisions as the API reads them: whoever may read the article may read its revisions. */
export class ArticleRevisions extends Effect.Service<ArticleRevisions>()("Articles/Revisions", {
  dependencies: [ArticlesRepo.Default, RevisionsRepo.Default],
  effect: Effect.gen(function* () {
    const articles = yield* ArticlesRepo
    const revisions = yield* RevisionsRepo

    const requireReadable = (credential: Credential, id: ArticleId) =>
      Effect.flatMap(articles.findReadable(readScope(credential), id), (found) =>
        Option.isNone(found) ? Effect.fail(new NotFound({ message: `No article with id ${id}.` })) : Effect.void
      )

    /** A page of the revisions of an article the caller has already read (so may read), newest first. */
    const pageOf = (article: { readonly id: ArticleId }, query: RevisionsQuery) =>
      Effect.gen(function* () {
        const page = { page: query.page, per_page: query.per_page }
        const { rows, total } = yield* revisions.page(article.id, page)
        return { data: rows, meta: pageMeta(page, total) }
      })

    /** A page of the article's revisions, newest first. */
    const list = Effect.fn("ArticleRevisions.list")(function* (
      credential: Credential,
      id: ArticleId,
      query: RevisionsQuery
    ) {
      yield* requireReadable(credential, id)
      return yield* pageOf({ id }, query)
    })

    /** One revision's snapshot, with its body's diff against the revision before (the first: against nothing). */
    const get = Effect.fn("ArticleRevisions.get")(function* (credential: Credential, id: ArticleId, number: number) {
      yield* requireReadable(credential, id)
      const found = yield* revisions.detail(id, number)
      if (Option.isNone(found)) return yield* new NotFound({ message: `Article ${id} has no revision ${number}.` })
      const { previous_body, ...revision } = found.value
      const diff = unifiedDiff(previous_body ?? "", revision.body, {
        from: number === 1 ? "(empty)" : `revision ${number - 1}`,
        to: `revision ${number}`
      })
      return { ...revision, diff } satisfies RevisionDetail
    })

    return { list, pageOf, get }
  })
}) {}
