import { HttpServerResponse } from "@effect/platform"
import {
  createMcpHandler,
  INVALID_REQUEST,
  isJSONRPCRequest,
  isLegacyRequest,
  type McpHandlerRequestOptions,
  Server,
  WebStandardStreamableHTTPServerTransport
} from "@modelcontextprotocol/server"
import { Effect, Option, Predicate } from "effect"
import { MAX_MCP_BODY_BYTES } from "../Http/RequestBodies.js"
import type { Cards } from "./Cards.js"
import { refuseInvalidParams } from "./InvalidParams.js"
import { makeMcpServer, type ToolOutcome } from "./Server.js"
import type { Tool } from "./Tools.js"

/** Runs a tool for the signed-in user of the request being served. */
export type ToolCaller = (tool: Tool, args: Readonly<Record<string, unknown>>) => Promise<ToolOutcome>

/**
 * What one POST hands the protocol's server: the tools its connection may call (all that its list shows), how its
 * tool calls are answered (for its user, through the pipeline) and the cards as the address it used names them.
 */
export interface PostContext {
  readonly tools: ReadonlyArray<Tool>
  readonly call: ToolCaller
  readonly cards: Cards
}

/** The user a POST is answered for: their access token and its scopes. */
export interface PostCaller {
  readonly token: string
  readonly scopes: ReadonlyArray<string>
}

/** Where the SDK's `authInfo.extra` carries the server acquired for the POST, to the handler's factory. */
const SERVER_KEY = "server"

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

/** Closes an SDK object as a resource is released: a failure to close is logged, never the request's. */
const closing = (close: () => Promise<void>) => Effect.ignoreLogged(Effect.tryPromise(close))

/** The SDK's server of one POST, closed when the POST's scope closes. */
const acquireServer = (post: PostContext) =>
  Effect.acquireRelease(
    Effect.sync(() => makeMcpServer(post.tools, post.call, post.cards)),
    (server) => closing(() => server.close())
  )

/** A stateless transport that answers JSON (the 2025 revisions), closed when the POST's scope closes. */
const acquireLegacyTransport = Effect.acquireRelease(
  Effect.sync(
    () => new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  ),
  (transport) => closing(() => transport.close())
)

/**
 * The protocol, on the SDK's own servers and transports, for every revision a client may speak (each by the SDK's own
 * classification of the request): a fresh, stateless server per POST, so any instance can answer. The server (and
 * the transport of a 2025 revision) are resources of the POST's scope, released when its answer has left. `cards`
 * are the cards of a server the handler asks for outside a POST.
 */
export const makeProtocol = (tools: ReadonlyArray<Tool>, cards: Cards) => {
  /**
   * 2026-07-28 requests: each carries its own envelope; `server/discover` is answered; the Mcp-Method and Mcp-Name
   * headers are checked against the body (a request whose headers disagree with it is refused). The handler serves
   * each with the server acquired for its POST.
   */
  const modern = createMcpHandler(
    (context) => {
      const acquired = context.authInfo?.extra?.[SERVER_KEY]
      return acquired instanceof Server ? acquired : makeMcpServer(tools, noCaller, cards)
    },
    { legacy: "reject", maxRequestBodySize: MAX_MCP_BODY_BYTES }
  )

  /** Answers a POST's web request for `caller`; `parsedBody` is its body when it is JSON. */
  return (request: Request, caller: PostCaller, post: PostContext, parsedBody: Option.Option<unknown>) =>
    Effect.gen(function* () {
      const server = yield* acquireServer(post)
      const options: McpHandlerRequestOptions = {
        authInfo: { token: caller.token, clientId: "", scopes: [...caller.scopes], extra: { [SERVER_KEY]: server } },
        ...(Option.isSome(parsedBody) ? { parsedBody: parsedBody.value } : {})
      }
      const legacy = yield* Effect.promise(() =>
        isLegacyRequest(request, options.parsedBody, { maxRequestBodySize: MAX_MCP_BODY_BYTES })
      )
      if (!legacy) return yield* Effect.promise(() => modern.fetch(request, options))
      // The 2025 revisions (initialize, then calls), served statelessly, answered as JSON.
      const transport = yield* acquireLegacyTransport
      yield* Effect.promise(() => server.connect(transport))
      refuseInvalidParams(transport)
      return yield* Effect.promise(() => transport.handleRequest(request, options))
    })
}
