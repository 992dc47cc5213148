import type { SqlClient } from "@effect/sql"
import { assert, describe, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import type { PageMeta } from "../../src/Domain/Pagination.js"
import { withSessionTimeZone } from "./SessionTimeZone.js"
import { TestApp } from "./TestServer.js"

/** A date-filter query of a list: UTC days, and paging. */
export interface DateQuery {
  readonly from?: string
  readonly to?: string
  readonly page?: number
  readonly per_page?: number
}

type ListPage = { readonly data: ReadonlyArray<{ readonly id: number }>; readonly meta: PageMeta }

/** One list endpoint, as the date-filter tests drive it. */
export interface DatedList {
  readonly key: string
  /** The list's path (`/api/v1/...`), for the queries the typed client cannot send. */
  readonly path: string
  /** The ids of the items made, in the order of the times asked for. */
  readonly ids: ReadonlyArray<number>
  /** One page through the typed client. */
  readonly list: (query: DateQuery) => Effect.Effect<ListPage, unknown, TestApp>
}

export interface DateFilterContract {
  /** Names the endpoint in the test names, e.g. `GET /sites/{id}/articles`. */
  readonly endpoint: string
  /** The timestamp field the dates filter on (`published_at`). */
  readonly field: string
  /** A list of its own (on a fresh account) with one item at each of `times` (null: an item without one). */
  readonly listWith: (times: ReadonlyArray<string | null>) => Effect.Effect<DatedList, never, TestApp>
  /** Whether the field can be missing (then the filters leave such items out). */
  readonly nullable: boolean
  /** Malformed or impossible dates, each a name and a query string: each is 422 validation_error. */
  readonly refused: ReadonlyArray<readonly [string, string]>
}

const idsOf = (page: ListPage) => page.data.map((item) => item.id)

/** Items around the 2026-10-10 .. 2026-10-12 window, and one without a date when the field can lack one. */
const window = (contract: DateFilterContract) =>
  Effect.gen(function* () {
    const times = [
      "2026-10-09T23:59:59Z",
      "2026-10-10T00:00:00Z",
      "2026-10-12T23:59:59Z",
      "2026-10-13T00:00:00Z",
      ...(contract.nullable ? [null] : [])
    ]
    const list = yield* contract.listWith(times)
    const [before, firstDay, lastDay, after] = list.ids
    return { list, before: before!, firstDay: firstDay!, lastDay: lastDay!, after: after! }
  })

/**
 * Registers the tests of the contract's date rules that every dated list shares: `from` and `to` are inclusive UTC
 * calendar days on the list's timestamp, either alone bounds one side, they hold whatever the database session's
 * time zone, they combine with paging, and a malformed or impossible date, or `from` after `to`, is 422.
 */
export const dateFilterContract = (
  it: Vitest.MethodsNonLive<TestApp | SqlClient.SqlClient>,
  contract: DateFilterContract
) =>
  describe(`${contract.endpoint}: the date filters`, () => {
    const without = contract.nullable ? ` and leave out items without ${contract.field}` : ""

    it.effect(`from and to are inclusive UTC days on ${contract.field}${without}`, () =>
      Effect.gen(function* () {
        const f = yield* window(contract)
        const page = yield* f.list.list({ from: "2026-10-10", to: "2026-10-12" })
        assert.deepStrictEqual(idsOf(page), [f.lastDay, f.firstDay])
        assert.deepStrictEqual(page.meta, { page: 1, per_page: 20, total: 2, last_page: 1 })
      })
    )

    it.effect(`from alone bounds only the start${without}`, () =>
      Effect.gen(function* () {
        const f = yield* window(contract)
        assert.deepStrictEqual(idsOf(yield* f.list.list({ from: "2026-10-10" })), [f.after, f.lastDay, f.firstDay])
      })
    )

    it.effect(`to alone bounds only the end${without}`, () =>
      Effect.gen(function* () {
        const f = yield* window(contract)
        assert.deepStrictEqual(idsOf(yield* f.list.list({ to: "2026-10-12" })), [f.lastDay, f.firstDay, f.before])
      })
    )

    it.effect("from equal to to selects that single UTC day", () =>
      Effect.gen(function* () {
        const f = yield* window(contract)
        assert.deepStrictEqual(idsOf(yield* f.list.list({ from: "2026-10-09", to: "2026-10-09" })), [f.before])
      })
    )

    it.effect("from and to are UTC days whatever the database session's TimeZone setting", () =>
      Effect.gen(function* () {
        const f = yield* window(contract)
        const page = yield* withSessionTimeZone(
          "Pacific/Kiritimati",
          f.list.list({ from: "2026-10-10", to: "2026-10-12" })
        )
        assert.deepStrictEqual(idsOf(page), [f.lastDay, f.firstDay])
      })
    )

    it.effect("a date filter combines with pagination: total counts only the matching items", () =>
      Effect.gen(function* () {
        const f = yield* window(contract)
        const page = yield* f.list.list({ from: "2026-10-10", per_page: 2, page: 2 })
        assert.deepStrictEqual(idsOf(page), [f.firstDay])
        assert.deepStrictEqual(page.meta, { page: 2, per_page: 2, total: 3, last_page: 2 })
      })
    )

    for (const [name, query] of contract.refused) {
      it.effect(`${contract.endpoint} with ${name} is 422 validation_error`, () =>
        Effect.gen(function* () {
          const list = yield* contract.listWith([])
          const app = yield* TestApp
          const res = yield* app.fetch(`${list.path}?${query}`, { headers: { authorization: `Bearer ${list.key}` } })
          const body: { readonly error?: unknown } = yield* Effect.promise(() => res.json())
          assert.strictEqual(res.status, 422)
          assert.strictEqual(body.error, "validation_error")
        })
      )
    }
  })
