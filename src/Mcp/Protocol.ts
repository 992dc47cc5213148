import { HttpServerResponse } from "@effect/platform"
import {
  createMcpHandler,
  INVALID_REQUEST,
  isJSONRPCRequest,
  isLegacyRequest,
  type McpHandlerRequestOptions,
  WebStandardStreamableHTTPServerTransport
} from "@modelcontextprotocol/server"
import { Effect, Predicate } from "effect"
import { MAX_MCP_BODY_BYTES } from "../Http/RequestBodies.js"
import type { Cards } from "./Cards.js"
import { refuseInvalidParams } from "./InvalidParams.js"
import { makeMcpServer, type ToolOutcome } from "./Server.js"
import type { Tool } from "./Tools.js"

/** Runs a tool for the signed-in user of the request being served. */
export type ToolCaller = (tool: Tool, args: Readonly<Record<string, unknown>>) => Promise<ToolOutcome>

/**
 * What one POST hands the protocol's server, inside the SDK's `authInfo.extra`: the tools its connection may call
 * (all that its list shows), how its tool calls are answered (for its user, through the pipeline) and the cards as
 * the address it used names them.
 */
export class PostContext {
  constructor(
    readonly tools: ReadonlyArray<Tool>,
    readonly call: ToolCaller,
    readonly cards: Cards
  ) {}
}

const POST_KEY = "post"

/** The SDK's `authInfo` of a POST: its user's token and scopes, and its `PostContext`. */
export const authInfoOf = (token: string, scopes: ReadonlyArray<string>, post: PostContext) => ({
  token,
  clientId: "",
  scopes: [...scopes],
  extra: { [POST_KEY]: post }
})

/** The revisions of the protocol whose JSON-RPC messages may come in batches; 2025-06-18 removed them. */
const batchRevisions = new Set(["2024-10-07", "2024-11-05", "2025-03-26"])

/**
 * The revision a POST speaks: its `MCP-Protocol-Version` header, else the one an initialize request asks for, else
 * 2025-03-26 (what the specification has a server assume when a request names none).
 */
const revisionOf = (headers: Readonly<Record<string, string | undefined>>, messages: ReadonlyArray<unknown>) => {
  const initialize = messages.find((message) => isJSONRPCRequest(message) && message.method === "initialize")
  const params = isJSONRPCRequest(initialize) && Predicate.isRecord(initialize.params) ? initialize.params : {}
  const asked = params["protocolVersion"]
  return headers["mcp-protocol-version"] ?? (typeof asked === "string" ? asked : "2025-03-26")
}

/** A JSON-RPC error answered before any message of the request is read as one. */
export const jsonRpcError = (status: number, code: number, message: string) =>
  HttpServerResponse.unsafeJson({ jsonrpc: "2.0", id: null, error: { code, message } }, { status })

/** A batch from a client whose revision has none: the refusal, before anything in it runs; undefined when allowed. */
export const refusedBatch = (
  headers: Readonly<Record<string, string | undefined>>,
  messages: ReadonlyArray<unknown>
) => {
  const revision = revisionOf(headers, messages)
  return batchRevisions.has(revision)
    ? undefined
    : jsonRpcError(
        400,
        INVALID_REQUEST,
        `Invalid Request: MCP revision ${revision} has no JSON-RPC batches; send one message per request.`
      )
}

/** The known tool a message calls, with its arguments when they are an object. */
export const toolCallOf = (tools: ReadonlyArray<Tool>, message: unknown) => {
  if (!isJSONRPCRequest(message) || message.method !== "tools/call") return undefined
  const params = Predicate.isRecord(message.params) ? message.params : {}
  const name = params["name"]
  const args = params["arguments"] ?? {}
  if (typeof name !== "string" || !Predicate.isRecord(args) || Array.isArray(args)) return undefined
  const tool = tools.find((candidate) => candidate.name === name)
  return tool === undefined ? undefined : { tool, args }
}

/**
 * The server's answer to the protocol's: a JSON answer read whole and sent as it is (a stream read chunk by chunk
 * through the platform costs more than the call it carries); an event stream passed on as it comes.
 */
export const serverResponseOf = (response: Response) => {
  const type = response.headers.get("content-type")
  if (type === null || !type.startsWith("application/json")) return Effect.succeed(HttpServerResponse.fromWeb(response))
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    if (name !== "content-type" && name !== "content-length") headers[name] = value
  })
  return Effect.map(
    Effect.promise(() => response.arrayBuffer()),
    (body) =>
      HttpServerResponse.uint8Array(new Uint8Array(body), { status: response.status, contentType: type, headers })
  )
}

const noCaller: ToolCaller = () => Promise.reject(new Error("a tool call outside a request"))

/**
 * The protocol, on the SDK's own servers and transports, for every revision a client may speak (each by the SDK's own
 * classification of the request): a fresh, stateless server per request, so any instance can answer. `cards` are
 * the cards of a request that brings no `PostContext`.
 */
export const makeProtocol = (tools: ReadonlyArray<Tool>, cards: Cards) => {
  const serverFor = (options: McpHandlerRequestOptions) => {
    const post = options.authInfo?.extra?.[POST_KEY]
    return post instanceof PostContext
      ? makeMcpServer(post.tools, post.call, post.cards)
      : makeMcpServer(tools, noCaller, cards)
  }

  /**
   * 2026-07-28 requests: each carries its own envelope; `server/discover` is answered; the Mcp-Method and Mcp-Name
   * headers are checked against the body (a request whose headers disagree with it is refused).
   */
  const modern = createMcpHandler(
    (context) => serverFor({ ...(context.authInfo ? { authInfo: context.authInfo } : {}) }),
    { legacy: "reject", maxRequestBodySize: MAX_MCP_BODY_BYTES }
  )

  /** The 2025 revisions (initialize, then calls), served statelessly by a fresh server, answered as JSON. */
  const legacy = async (request: Request, options: McpHandlerRequestOptions) => {
    const server = serverFor(options)
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true
    })
    await server.connect(transport)
    refuseInvalidParams(transport)
    try {
      return await transport.handleRequest(request, options)
    } finally {
      await server.close()
    }
  }

  return async (request: Request, options: McpHandlerRequestOptions) =>
    (await isLegacyRequest(request, options.parsedBody, { maxRequestBodySize: MAX_MCP_BODY_BYTES }))
      ? legacy(request, options)
      : modern.fetch(request, options)
}
