import { randomBytes } from "node:crypto"
import { assert } from "@effect/vitest"
import { Clock, Effect, Option } from "effect"
import { Accounts } from "../../src/Auth/Accounts.js"
import { callToolRaw, makeBrowser, signInWithSdk } from "./McpClient.js"
import { TestApp } from "./TestServer.js"
import { PASSWORD } from "./WebPages.js"

/** The test server has no PUBLIC_BASE_URL, so its public address (the OAuth issuer) is http://localhost:<port>. */
export const mcpAddress = Effect.gen(function* () {
  const app = yield* TestApp
  const base = `http://localhost:${new URL(app.baseUrl).port}`
  return { app, base, mcpUrl: `${base}/mcp` }
})

/**
 * A new account whose user has signed in for MCP through the SDK (discovery, registration, sign-in, Allow, token
 * exchange); an API key of the same account for the REST side. The account has no website yet.
 */
export const newMcpUser = Effect.gen(function* () {
  const { app, mcpUrl } = yield* mcpAddress
  const email = `mcp-${randomBytes(4).toString("hex")}@example.com`
  const { accountId, key } = yield* app.makeAccount({ email, password: PASSWORD })
  const accounts = yield* Accounts
  const userId = Option.getOrThrow(yield* accounts.findByEmail(email).pipe(Effect.orDie)).user_id
  const { provider, accessToken } = yield* signInWithSdk({
    mcpUrl,
    browser: makeBrowser(app.baseUrl),
    user: { email, password: PASSWORD }
  })
  /** A tool call over raw JSON-RPC with the session's token. */
  const callTool = (name: string, args: Record<string, unknown>) => callToolRaw(mcpUrl, accessToken, name, args)
  return { mcpUrl, accountId, key, userId, provider, token: accessToken, callTool }
})
export type McpUser = Effect.Effect.Success<typeof newMcpUser>

/** A signed-in user (as `newMcpUser`) whose account has one website. */
export const newMcpSession = Effect.gen(function* () {
  const user = yield* newMcpUser
  const app = yield* TestApp
  const siteId = yield* app.makeSite(user.accountId)
  return { ...user, siteId }
})

/**
 * `make` run once for a whole test file and its result kept, for the tests that change nothing account-wide (the
 * browser dance is done once); made again once the test clock is half an hour past, before its token can expire.
 */
const keptForTheFile = <A, E, R>(make: Effect.Effect<A, E, R>) => {
  let shared: { readonly value: A; readonly madeAt: number } | undefined
  return Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    if (shared === undefined || now - shared.madeAt > 30 * 60_000) {
      shared = { value: yield* make, madeAt: now }
    }
    return shared.value
  })
}

/**
 * One signed-in user (as `newMcpUser`) for a whole test file; tests that use up the edit quota, fill the request
 * window or count audit rows get their own. One per test file: `const sharedSession = sharedMcpUser()`.
 */
export const sharedMcpUser = () => keptForTheFile(newMcpUser)

/** One signed-in user with a website (as `newMcpSession`) for a whole test file. */
export const sharedMcpSession = () => keptForTheFile(newMcpSession)

type ToolCaller = Pick<McpUser, "callTool">

/** A tool call that must succeed; its structured content, which must equal its text. */
export const toolData = (session: ToolCaller, name: string, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    const reply = yield* session.callTool(name, args)
    assert.isFalse(reply.isError, JSON.stringify(reply.text))
    assert.deepStrictEqual(reply.structured, reply.text)
    return reply.text
  })

/** A tool call that must fail; its error body (the text of the isError result). */
export const toolError = (session: ToolCaller, name: string, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    const reply = yield* session.callTool(name, args)
    assert.isTrue(reply.isError, `expected a tool error, got ${JSON.stringify(reply.text)}`)
    assert.isUndefined(reply.structured)
    assert.isString(reply.text.message)
    return reply.text
  })
