import { randomBytes } from "node:crypto"
import { Effect, Option } from "effect"
import { Accounts } from "../../src/Auth/Accounts.js"
import { callToolRaw, makeBrowser, signInWithSdk } from "./McpClient.js"
import { TestApp } from "./TestServer.js"

const PASSWORD = "correct horse battery staple"

/**
 * A new account with one website, whose user has signed in for MCP through the SDK (discovery, registration,
 * sign-in, Allow, token exchange); an API key of the same account for the REST side.
 */
export const newMcpSession = Effect.gen(function* () {
  const app = yield* TestApp
  const mcpUrl = `http://localhost:${new URL(app.baseUrl).port}/mcp`
  const email = `mcp-${randomBytes(4).toString("hex")}@example.com`
  const { accountId, key } = yield* app.makeAccount({ email, password: PASSWORD })
  const siteId = yield* app.makeSite(accountId)
  const accounts = yield* Accounts
  const userId = Option.getOrThrow(yield* accounts.findByEmail(email).pipe(Effect.orDie)).user_id
  const { provider, accessToken } = yield* signInWithSdk({
    mcpUrl,
    browser: makeBrowser(app.baseUrl),
    user: { email, password: PASSWORD }
  })
  /** A tool call over raw JSON-RPC with the session's token. */
  const callTool = (name: string, args: Record<string, unknown>) => callToolRaw(mcpUrl, accessToken, name, args)
  return { mcpUrl, accountId, siteId, key, userId, provider, token: accessToken, callTool }
})
