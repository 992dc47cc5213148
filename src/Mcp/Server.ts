import { type CallToolResult, ResourceNotFoundError, Server } from "@modelcontextprotocol/server"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv"
import { NotFound, publicError } from "../Domain/Errors.js"
import { type Cards, cardToolMeta, EXTENSION_ID } from "./Cards.js"
import type { Tool } from "./Tools.js"

/**
 * What a tool call came to: the structured result, or the public error body with its HTTP status; `text` is the
 * endpoint's JSON answer as it sent it, which the result's text content repeats.
 */
export type ToolOutcome = (
  | { readonly _tag: "Ok"; readonly data: Record<string, unknown>; readonly text: string }
  | { readonly _tag: "Error"; readonly status: number; readonly body: Record<string, unknown>; readonly text: string }
) & { readonly limits?: ToolLimits | undefined }

/**
 * Where the call left the limits, as its endpoint's `RateLimit` header states them: the credential's requests left
 * this minute and the account's article changes left today, each with the seconds until it renews. Every tool result
 * carries it in `_meta`, so an assistant can plan (a dry run uses no change).
 */
export interface ToolLimits {
  readonly requests_remaining: number
  readonly requests_reset_seconds: number
  readonly edits_remaining: number
  readonly edits_reset_seconds: number
}

/** The `_meta` key of the limits. */
export const LIMITS_META = "content-backlink-service/limits"

/**
 * One JSON Schema validator for every request's server (it keeps what it compiled): each server would otherwise make
 * an Ajv of its own, which costs more than the tool call it serves.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator()

/**
 * How long a client may keep the tool list (2026-07-28 list results carry it): the tools change only with a new
 * version of the service; the list is the connection's own (one that may only read lists no write tool), so no
 * cache shared between connections keeps it.
 */
const TOOL_LIST_CACHE = { ttlMs: 60 * 60 * 1000, cacheScope: "private" } as const

/**
 * A fresh MCP server for one request (every revision is served stateless), the same for every revision a client
 * speaks. `tools` are those the connection may call, all that its list shows; `call` runs one for the signed-in user
 * and settles with its outcome; tool errors are results with `isError` whose text is the HTTP error body.
 */
export const makeMcpServer = (
  tools: ReadonlyArray<Tool>,
  call: (tool: Tool, args: Readonly<Record<string, unknown>>) => Promise<ToolOutcome>,
  /** The cards (MCP Apps) some tools' results are shown in, as resources. */
  cards: Cards
): Server => {
  const server = new Server(
    { name: "content-backlink-service", title: "Content and Backlink Service", version: "1.0.0" },
    {
      // The tools, and the cards (MCP Apps) that show some of their results, as resources.
      capabilities: { tools: {}, resources: {}, extensions: { [EXTENSION_ID]: {} } },
      jsonSchemaValidator,
      cacheHints: { "tools/list": TOOL_LIST_CACHE },
      instructions:
        "Read the websites, articles, backlinks, period counts and recent events (what changed) of the signed-in account, and edit its articles. Protected links (data-service-protected) in article bodies must be kept exactly; every edit is stored as a revision."
    }
  )
  server.setRequestHandler("tools/list", () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: { ...tool.inputSchema, type: "object" as const },
      outputSchema: { ...tool.outputSchema, type: "object" as const },
      annotations: tool.annotations,
      ...(tool.card === undefined ? {} : { _meta: cardToolMeta(tool.card) })
    }))
  }))
  server.setRequestHandler("resources/list", () => cards.list())
  server.setRequestHandler("resources/read", (request) => {
    const found = cards.read(request.params.uri)
    if (found === undefined)
      throw new ResourceNotFoundError(request.params.uri, `No resource at ${request.params.uri}.`)
    return found
  })
  server.setRequestHandler("tools/call", async (request): Promise<CallToolResult> => {
    const tool = tools.find((candidate) => candidate.name === request.params.name)
    if (tool === undefined) {
      const { body } = publicError(new NotFound({ message: `No tool named ${request.params.name}.` }))
      return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] }
    }
    const outcome = await call(tool, request.params.arguments ?? {})
    const meta = outcome.limits === undefined ? {} : { _meta: { [LIMITS_META]: outcome.limits } }
    return outcome._tag === "Ok"
      ? { structuredContent: outcome.data, content: [{ type: "text", text: outcome.text }], ...meta }
      : { isError: true, content: [{ type: "text", text: outcome.text }], ...meta }
  })
  return server
}
