import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { SiteId } from "../src/Domain/Ids.js"
import { apiClient } from "./support/ApiClient.js"
import { listContract } from "./support/ListContract.js"
import { getWithKey as get, TestApp, TestServerLive } from "./support/TestServer.js"

/** An account with `count` websites, in creation (id) order. */
const accountWithSites = (count: number) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const account = yield* app.makeAccount()
    const siteIds: Array<SiteId> = []
    for (let i = 0; i < count; i++) siteIds.push(yield* app.makeSite(account.accountId))
    return { ...account, siteIds }
  })

layer(TestServerLive)("GET /api/v1/sites", (it) => {
  listContract(it, {
    endpoint: "GET /sites",
    listWith: (count) =>
      Effect.gen(function* () {
        const { key } = yield* accountWithSites(count)
        const client = yield* apiClient(key)
        return { key, path: "/api/v1/sites", list: (page) => client.sites.listSites({ urlParams: page }) }
      })
  })

  describe("contents", () => {
    it.effect("lists only the key's own websites, in id order", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const other = yield* app.makeAccount()
        yield* app.makeSite(other.accountId)
        const own = yield* accountWithSites(3)
        yield* app.makeSite(other.accountId)
        const client = yield* apiClient(own.key)
        const { data, meta } = yield* client.sites.listSites({ urlParams: { page: 1, per_page: 20 } })
        assert.deepStrictEqual(
          data.map((site) => site.id),
          own.siteIds
        )
        assert.strictEqual(meta.total, 3)
      })
    )

    it.effect("returns every Site field, null when unset", () =>
      Effect.gen(function* () {
        const app = yield* TestApp
        const { accountId, key } = yield* app.makeAccount()
        const fullFields = {
          name: "Example Plumbing",
          website_url: "https://plumbing.example.com",
          language: "en-GB",
          country: "GB",
          geographic_scope: "national",
          industry: "Plumbing"
        } as const
        const bareFields = {
          name: null,
          website_url: null,
          language: null,
          country: null,
          geographic_scope: null,
          industry: null
        }
        const full = yield* app.makeSite(accountId, fullFields)
        const bare = yield* app.makeSite(accountId, bareFields)
        // The JSON as sent: the typed client would drop a field the schema does not know.
        const { body } = yield* get("/api/v1/sites", key)
        assert.deepStrictEqual(body.data, [
          { id: full, ...fullFields },
          { id: bare, ...bareFields }
        ])
      })
    )
  })
})
