import fc from "fast-check"
import { hostileHtml, rarely, shortHostileString } from "./Hostile.js"
import { asHeaderValue, contentType, framing, headersOf } from "./HostileHttp.js"
import { deepJson, hostileJson, malformedJson, notUtf8Json, toJsonText } from "./HostileJson.js"
import type { RawRequest } from "./RawHttp.js"
import { type JsonSchema, valuesOf } from "./SchemaValues.js"

// Requests to POST /mcp: JSON-RPC messages, mostly tool calls with arguments from each tool's input schema.

export interface McpTool {
  readonly name: string
  readonly inputSchema: JsonSchema
}

export interface McpFixtures {
  readonly tools: ReadonlyArray<McpTool>
  readonly token: string
  readonly siteIds: ReadonlyArray<number>
  readonly articleIds: ReadonlyArray<number>
  readonly foreignIds: ReadonlyArray<number>
  readonly bodyText: ReadonlyArray<string>
  /** The service's own origin (`http://localhost:<port>`). */
  readonly origin: string
}

const MCP_ACCEPT = "application/json, text/event-stream"
const protocolVersions = ["2025-06-18", "2025-03-26", "2024-11-05", "2025-11-25"]

/** A tools/call: each tool's arguments from its input schema (favouring the fixtures' ids), or junk. */
const toolCall = (fx: McpFixtures) => {
  const ids = [...fx.siteIds, ...fx.articleIds, ...fx.foreignIds]
  const favour: Record<string, fc.Arbitrary<unknown>> = {
    site_id: fc.constantFrom(...fx.siteIds, ...fx.foreignIds),
    article_id: fc.constantFrom(...fx.articleIds, ...fx.foreignIds),
    body: hostileHtml,
    find: fc.constantFrom(...fx.bodyText),
    id: fc.constantFrom(...ids)
  }
  return fc.oneof(
    {
      weight: 16,
      arbitrary: fc.oneof(
        ...fx.tools.map((tool) =>
          fc
            .oneof(
              { weight: 8, arbitrary: valuesOf(tool.inputSchema, () => ({}), favour) },
              { weight: 1, arbitrary: hostileJson }
            )
            .map((args) => ({ name: tool.name, arguments: args }))
        )
      )
    },
    { weight: 1, arbitrary: fc.record({ name: shortHostileString, arguments: hostileJson }) },
    { weight: 1, arbitrary: hostileJson }
  )
}

/** One JSON-RPC message: mostly a tool call, or another method, with its envelope sometimes wrong. */
const rpcMessage = (fx: McpFixtures) =>
  fc
    .record({
      jsonrpc: fc.oneof({ weight: 20, arbitrary: fc.constant<unknown>("2.0") }, hostileJson),
      id: fc.oneof(
        { weight: 12, arbitrary: fc.nat() },
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: hostileJson }
      ),
      call: fc.oneof(
        { weight: 10, arbitrary: toolCall(fx).map((params) => ({ method: "tools/call", params })) },
        {
          weight: 3,
          arbitrary: fc.record({
            method: fc.constantFrom(
              "initialize",
              "tools/list",
              "ping",
              "notifications/initialized",
              "notifications/cancelled",
              "resources/list",
              "prompts/get",
              "logging/setLevel",
              "completion/complete"
            ),
            params: fc.oneof(
              fc.constant<unknown>({}),
              fc.record({
                protocolVersion: fc.oneof(fc.constantFrom(...protocolVersions), shortHostileString),
                capabilities: fc.oneof(fc.constant({}), hostileJson),
                clientInfo: fc.record({ name: shortHostileString, version: shortHostileString })
              }),
              hostileJson
            )
          })
        },
        { weight: 1, arbitrary: fc.record({ method: hostileJson, params: hostileJson }) }
      )
    })
    .map(({ jsonrpc, id, call }) => ({ jsonrpc, ...(id === undefined ? {} : { id }), ...call }))

/** POST /mcp with the user's access token (mostly), generated JSON-RPC, and the headers the transport looks at. */
export const mcpRequest = (fx: McpFixtures): fc.Arbitrary<RawRequest> => {
  const body: fc.Arbitrary<string | Uint8Array> = fc.oneof(
    { weight: 12, arbitrary: rpcMessage(fx).map(toJsonText) },
    { weight: 1, arbitrary: fc.array(rpcMessage(fx), { maxLength: 3 }).map(toJsonText) },
    { weight: 1, arbitrary: malformedJson },
    { weight: 1, arbitrary: deepJson.map((deep) => deep.text) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...fx.tools.map((tool) => tool.name)), deepJson)
        .map(([name, deep]) =>
          toJsonText({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: { body: deep } } })
        )
    },
    { weight: 1, arbitrary: notUtf8Json("method") }
  )
  const headers = fc.record({
    authorization: fc.oneof(
      { weight: 20, arbitrary: fc.constant<string | undefined>(`Bearer ${fx.token}`) },
      fc.constant(undefined),
      shortHostileString.map((junk) => asHeaderValue(`Bearer ${junk}`)),
      fc.constant(`Bearer ${fx.token}x`)
    ),
    accept: fc.oneof(
      { weight: 16, arbitrary: fc.constant<string | undefined>(MCP_ACCEPT) },
      fc.constantFrom(undefined, "application/json", "text/event-stream", "*/*", "", "text/html")
    ),
    "content-type": fc.oneof(
      { weight: 12, arbitrary: fc.constant<string | undefined>("application/json") },
      contentType
    ),
    "mcp-protocol-version": rarely(
      4,
      fc.oneof(fc.constantFrom(...protocolVersions), shortHostileString.map(asHeaderValue))
    ),
    "mcp-session-id": rarely(10, shortHostileString.map(asHeaderValue)),
    origin: rarely(8, fc.constantFrom(fx.origin, "https://evil.example", "null", fx.origin.replace("http:", "https:"))),
    host: rarely(20, fc.constantFrom("evil.example", "localhost", "127.0.0.1:1", "[::1]", "caf\u00e9.example"))
  })
  return fc.record({ body, headers, framing }).map(({ body, headers, framing }) => ({
    method: "POST",
    target: "/mcp",
    headers: headersOf(Object.entries(headers)),
    body,
    framing
  }))
}
