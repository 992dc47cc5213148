import { Effect, Option } from "effect"
import { type BacklinkCategory, BacklinkWithChecks } from "../Domain/Backlink.js"
import type { Credential } from "../Domain/Credential.js"
import { isOrderedRange } from "../Domain/Dates.js"
import { NotFound, ValidationError } from "../Domain/Errors.js"
import type { BacklinkId, SiteId } from "../Domain/Ids.js"
import { pageMeta } from "../Domain/Pagination.js"
import type { BacklinksQuery } from "../Domain/Queries.js"
import { Sites } from "../Sites/Sites.js"
import { BacklinksRepo } from "./Repo.js"

export class Backlinks extends Effect.Service<Backlinks>()("Backlinks/Backlinks", {
  dependencies: [BacklinksRepo.Default, Sites.Default],
  effect: Effect.gen(function* () {
    const repo = yield* BacklinksRepo
    const sites = yield* Sites

    /** The website's backlinks; `category` narrows them to industry or local ones (the web pages use it). */
    const list = Effect.fn("Backlinks.list")(function* (
      credential: Credential,
      siteId: SiteId,
      query: BacklinksQuery & { readonly category?: BacklinkCategory }
    ) {
      yield* sites.requireReadable(credential, siteId)
      if (!isOrderedRange(query)) return yield* new ValidationError({ message: "from must not be after to." })
      const page = { page: query.page, per_page: query.per_page }
      const { rows, total } = yield* repo.list(siteId, query, page)
      return { data: rows, meta: pageMeta(page, total) }
    })

    /** One backlink of a website the credential may read, with its last checks; 404 otherwise, alike. */
    const get = Effect.fn("Backlinks.get")(function* (credential: Credential, id: BacklinkId) {
      const missing = new NotFound({ message: `No backlink with id ${id}.` })
      const found = yield* repo.find(id)
      if (Option.isNone(found)) return yield* missing
      yield* sites.requireReadable(credential, found.value.site_id).pipe(Effect.mapError(() => missing))
      const checks = yield* repo.lastChecks(id)
      return { data: new BacklinkWithChecks({ ...found.value, checks }) }
    })

    return { list, get }
  })
}) {}
