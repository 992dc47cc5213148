import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { type AccountId, SiteId } from "../Domain/Ids.js"
import { offsetOf, type Page } from "../Domain/Pagination.js"
import type { ReadScope } from "../Domain/Scope.js"
import { Site } from "../Domain/Site.js"

export interface SiteFilter {
  readonly scope: ReadScope
  /** Only this account's sites (admin `account` filter). */
  readonly accountId?: AccountId | undefined
  /** Part of the website URL (admin `website` filter). */
  readonly website?: string | undefined
}

const Total = Schema.Struct({ total: Schema.Number })
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export class SitesRepo extends Effect.Service<SitesRepo>()("Sites/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql`id, name, website_url, language, country, geographic_scope, industry`

    const where = (filter: SiteFilter) =>
      sql.and([
        ...(filter.scope === null ? [] : [sql`account_id = ${filter.scope}`]),
        ...(filter.accountId === undefined ? [] : [sql`account_id = ${filter.accountId}`]),
        ...(filter.website === undefined ? [] : [sql`website_url ilike ${likePattern(filter.website)}`])
      ])

    const list = (filter: SiteFilter, page: Page) =>
      Effect.all({
        rows: SqlSchema.findAll({
          Request: Schema.Void,
          Result: Site,
          execute: () =>
            sql`select ${columns} from sites where ${where(filter)}
                order by id limit ${page.per_page} offset ${offsetOf(page)}`
        })(undefined),
        total: SqlSchema.single({
          Request: Schema.Void,
          Result: Total,
          execute: () => sql`select count(*) as total from sites where ${where(filter)}`
        })(undefined).pipe(Effect.map((row) => row.total))
      }).pipe(Effect.orDie)

    const findReadable = (scope: ReadScope, id: SiteId) =>
      SqlSchema.findOne({
        Request: SiteId,
        Result: Site,
        execute: (siteId) => sql`select ${columns} from sites where id = ${siteId} and ${where({ scope })}`
      })(id).pipe(Effect.orDie)

    return { list, findReadable }
  })
}) {}
