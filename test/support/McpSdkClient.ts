import { assert } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import type { TestOAuthProvider } from "./McpClient.js"
import { mcpAddress } from "./McpSession.js"

/** The SDK's Client connected over Streamable HTTP with the provider's tokens; closed with the scope. */
export const connectClient = (provider: TestOAuthProvider) =>
  Effect.gen(function* () {
    const { mcpUrl } = yield* mcpAddress
    return yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new Client({ name: "mcp-e2e-test", version: "1.0.0" })
        await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }))
        return client
      }),
      (client) => Effect.promise(() => client.close())
    )
  })

/**
 * A callTool through the SDK client that must succeed: its data read from the text content alone, as a client that
 * hands the model only the text does (the structured content must be the same).
 */
export const sdkToolData = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    const result = yield* Effect.promise(() => client.callTool({ name, arguments: args }))
    const content = result.content as ReadonlyArray<{ readonly type: string; readonly text?: string }>
    assert.notStrictEqual(result.isError, true, content[0]?.text)
    assert.strictEqual(content.length, 1)
    assert.strictEqual(content[0]!.type, "text")
    const text = JSON.parse(content[0]!.text!)
    assert.deepStrictEqual(result.structuredContent, text)
    return text
  })
