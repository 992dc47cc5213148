import type { SqlClient } from "@effect/sql"
import { assert, describe, type Vitest } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ValidationError } from "../../src/Domain/Errors.js"
import { MAX_PAGE, type Page, PageMeta } from "../../src/Domain/Pagination.js"
import { TestApp } from "./TestServer.js"

/** One list endpoint, as the list-contract tests drive it. */
export interface ListUnderTest {
  /** The key that owns the list. */
  readonly key: string
  /** The list's path (`/api/v1/...`), for the requests the typed client cannot send: paging left out or malformed. */
  readonly path: string
  /** One page through the typed client. */
  readonly list: (
    page: Page
  ) => Effect.Effect<{ readonly data: ReadonlyArray<object>; readonly meta: PageMeta }, unknown>
}

export interface ListContract {
  /** Names the endpoint in the test names, e.g. `GET /sites/{id}/articles`. */
  readonly endpoint: string
  /** A list of its own (on a fresh account) holding `count` items. */
  readonly listWith: (count: number) => Effect.Effect<ListUnderTest, never, TestApp | SqlClient.SqlClient>
  /** The field that tells the items apart: `id` unless said (a revision's is its `number`). */
  readonly idField?: string
}

const RawPage = Schema.Struct({
  data: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  meta: PageMeta
})

/** GET `path` as written, with the key as a bearer token: the status and the parsed JSON answer. */
const rawGet = (path: string, key: string) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const res = yield* app.fetch(path, { headers: { authorization: `Bearer ${key}` } })
    const json: unknown = yield* Effect.promise(() => res.json())
    return { status: res.status, json }
  })

/** GET with a query the typed client refuses to send: asserts 422 and answers the decoded `validation_error`. */
const validationErrorOf = (path: string, key: string) =>
  Effect.gen(function* () {
    const { status, json } = yield* rawGet(path, key)
    assert.strictEqual(status, 422, JSON.stringify(json))
    return yield* Schema.decodeUnknown(ValidationError.Body)(json)
  })

/** The ids of a page of a list, in order. */
export const listedIds = (page: { readonly data: ReadonlyArray<{ readonly id: number }> }) =>
  page.data.map((item) => item.id)

/**
 * Registers the tests of the contract's "Lists" rules that every list endpoint shares: the default page size,
 * `last_page`, pages past the end, and the bounds of `page` and `per_page`. Each test builds its own list with
 * `listWith`. The order of the items is the feature's own rule and is tested beside it; here a page is compared
 * with the same items read in one page of 100.
 */
export const listContract = (it: Vitest.MethodsNonLive<TestApp | SqlClient.SqlClient>, contract: ListContract) =>
  describe(`${contract.endpoint}: the list contract`, () => {
    const idsOf = (page: { readonly data: ReadonlyArray<object> }): Array<unknown> =>
      page.data.map((item) => Reflect.get(item, contract.idField ?? "id"))
    it.effect("without page or per_page it answers page 1 of 20: 21 items are 20 on page 1 and 1 on page 2", () =>
      Effect.gen(function* () {
        const { key, path, list } = yield* contract.listWith(21)
        const all = idsOf(yield* list({ page: 1, per_page: 100 }))
        const first = yield* rawGet(path, key)
        assert.strictEqual(first.status, 200)
        const firstPage = yield* Schema.decodeUnknown(RawPage)(first.json)
        assert.deepStrictEqual(firstPage.meta, { page: 1, per_page: 20, total: 21, last_page: 2 })
        assert.deepStrictEqual(idsOf(firstPage), all.slice(0, 20))
        const second = yield* Schema.decodeUnknown(RawPage)((yield* rawGet(`${path}?page=2`, key)).json)
        assert.deepStrictEqual(second.meta, { page: 2, per_page: 20, total: 21, last_page: 2 })
        assert.deepStrictEqual(idsOf(second), all.slice(20))
      })
    )

    it.effect("last_page is ceil(total / per_page) for per_page from 1 to 100, and the last page holds the rest", () =>
      Effect.gen(function* () {
        const { list } = yield* contract.listWith(7)
        const cases: ReadonlyArray<readonly [perPage: number, lastPage: number]> = [
          [1, 7],
          [2, 4],
          [3, 3],
          [7, 1],
          [100, 1]
        ]
        for (const [perPage, lastPage] of cases) {
          const { meta } = yield* list({ page: 1, per_page: perPage })
          assert.deepStrictEqual(meta, { page: 1, per_page: perPage, total: 7, last_page: lastPage })
        }
        const all = idsOf(yield* list({ page: 1, per_page: 100 }))
        assert.deepStrictEqual(idsOf(yield* list({ page: 3, per_page: 3 })), all.slice(6))
      })
    )

    it.effect("pages follow one order without gaps or repeats", () =>
      Effect.gen(function* () {
        const { list } = yield* contract.listWith(5)
        const all = idsOf(yield* list({ page: 1, per_page: 100 }))
        assert.strictEqual(all.length, 5)
        const paged: Array<unknown> = []
        for (const page of [1, 2, 3]) paged.push(...idsOf(yield* list({ page, per_page: 2 })))
        assert.deepStrictEqual(paged, all)
      })
    )

    for (const { name, total, page, per_page, last_page } of [
      { name: "an empty list is data [] with total 0 and last_page 1", total: 0, page: 1, per_page: 20, last_page: 1 },
      {
        name: "a page past last_page returns data [] with the correct meta",
        total: 3,
        page: 3,
        per_page: 2,
        last_page: 2
      },
      {
        name: `the largest page number (${MAX_PAGE}) returns data [], not a 500`,
        total: 1,
        page: MAX_PAGE,
        per_page: 100,
        last_page: 1
      }
    ]) {
      it.effect(name, () =>
        Effect.gen(function* () {
          const { list } = yield* contract.listWith(total)
          assert.deepStrictEqual(yield* list({ page, per_page }), {
            data: [],
            meta: { page, per_page, total, last_page }
          })
        })
      )
    }

    it.effect("per_page=101 is 422 validation_error with limit 100", () =>
      Effect.gen(function* () {
        const { key, path } = yield* contract.listWith(1)
        const error = yield* validationErrorOf(`${path}?per_page=101`, key)
        assert.strictEqual(error.limit, 100)
      })
    )

    for (const query of [
      "per_page=0",
      "per_page=-5",
      "per_page=2.5",
      "per_page=ten",
      "page=0",
      "page=-1",
      "page=1.5",
      "page=first"
    ]) {
      it.effect(`${query} is 422 validation_error`, () =>
        Effect.gen(function* () {
          const { key, path } = yield* contract.listWith(1)
          yield* validationErrorOf(`${path}?${query}`, key)
        })
      )
    }

    // Integers are written in ASCII digits only, as ids are: no hexadecimal, exponent, sign or leading zero, which
    // a number parser would otherwise read as 16, 100, 5 and 5.
    for (const query of ["page=0x10", "per_page=1e2", "per_page=%2B5", "page=05", "per_page=%205", "page=2.0"]) {
      it.effect(`${decodeURIComponent(query)} is 422 validation_error naming the parameter`, () =>
        Effect.gen(function* () {
          const { key, path } = yield* contract.listWith(1)
          const error = yield* validationErrorOf(`${path}?${query}`, key)
          const name = query.slice(0, query.indexOf("="))
          assert.strictEqual(
            error.message,
            `${name}: must be a whole number from 1 to ${name === "page" ? "999999999" : "100"}`
          )
        })
      )
    }
  })
