import { Effect, Option } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import type { Credential } from "../Domain/Credential.js"
import { Forbidden, NotFound } from "../Domain/Errors.js"
import type { AccountId, SiteId, UserId } from "../Domain/Ids.js"
import { pageMeta } from "../Domain/Pagination.js"
import type { SitesQuery } from "../Domain/Queries.js"
import { readScope } from "../Domain/Scope.js"
import { SitesRepo } from "./Repo.js"

export class Sites extends Effect.Service<Sites>()("Sites/Sites", {
  dependencies: [SitesRepo.Default, Accounts.Default],
  effect: Effect.gen(function* () {
    const repo = yield* SitesRepo
    const accounts = yield* Accounts

    /** The admin `account` filter: a user id or an e-mail; the account it names, if any. */
    const resolveAccount = (account: string) =>
      (/^[1-9][0-9]{0,14}$/.test(account)
        ? accounts.findByUserId(Number(account) as UserId)
        : accounts.findByEmail(account)
      ).pipe(Effect.map(Option.map((row) => row.account_id)))

    const list = Effect.fn("Sites.list")(function* (credential: Credential, query: SitesQuery) {
      const filtered = query.account !== undefined || query.website !== undefined
      if (filtered && !credential.isAdmin) {
        return yield* new Forbidden({ message: "The account and website filters need an admin key." })
      }
      const page = { page: query.page, per_page: query.per_page }
      let accountId: AccountId | undefined
      if (query.account !== undefined) {
        const found = yield* resolveAccount(query.account)
        // No such customer: an empty list, as for a filter that matches nothing.
        if (Option.isNone(found)) return { data: [], meta: pageMeta(page, 0) }
        accountId = found.value
      }
      const filter = { scope: readScope(credential), accountId, website: query.website }
      const { rows, total } = yield* repo.list(filter, page)
      return { data: rows, meta: pageMeta(page, total) }
    })

    /** The site if the credential may read it; another account's site is not found, like a missing one. */
    const requireReadable = Effect.fn("Sites.requireReadable")(function* (credential: Credential, id: SiteId) {
      const site = yield* repo.findReadable(readScope(credential), id)
      return yield* Option.match(site, {
        onNone: () => Effect.fail(new NotFound({ message: `No website with id ${id}.` })),
        onSome: Effect.succeed
      })
    })

    return { list, requireReadable }
  })
}) {}
