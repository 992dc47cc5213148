import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  createMcpHandler,
  INVALID_REQUEST,
  isJSONRPCRequest,
  isLegacyRequest,
  type McpHandlerRequestOptions,
  WebStandardStreamableHTTPServerTransport
} from "@modelcontextprotocol/server"
import { Context, Effect, Either, Option, Runtime } from "effect"
import { Door, type RequestAllowance } from "../Api/Middleware.js"
import { bearerToken } from "../Auth/Authentication.js"
import { AppConfig } from "../Config.js"
import type { Credential, CredentialRefusal } from "../Domain/Credential.js"
import { MethodNotAllowed, publicError, Unauthorized } from "../Domain/Errors.js"
import { errorResponse } from "../Http/ErrorResponse.js"
import { ownHosts } from "../Http/Origins.js"
import { PublicUrl, RequestBase } from "../Http/PublicUrl.js"
import { MAX_MCP_BODY_BYTES, refuseDeepJson } from "../Http/RequestBodies.js"
import { AuthFailures } from "../Limits/AuthFailures.js"
import { Limits } from "../Limits/Limits.js"
import { limitHeaders, rateLimited, withLimitHeaders } from "../Limits/RequestLimit.js"
import { AccessTokens } from "../OAuth/AccessTokens.js"
import { CHALLENGE_SCOPE, resourceMetadataUrl } from "../OAuth/Metadata.js"
import { READ_AND_EDIT, READ_ONLY, WRITE_SCOPE } from "../OAuth/Scopes.js"
import { mcpBrowsers } from "./Browsers.js"
import { type Cards, makeCards } from "./Cards.js"
import { answerInProcess } from "./InProcess.js"
import { refuseInvalidParams } from "./InvalidParams.js"
import { makeMcpServer, type ToolLimits, type ToolOutcome } from "./Server.js"
import { planToolRequest, toolRequest } from "./ToolRequest.js"
import type { Tool } from "./Tools.js"

/** What a refused access token is told (no double quote: each is a quoted string in the challenge too). */
const tokenRefusals: Readonly<Record<CredentialRefusal, string>> = {
  unknown: "The access token is unknown; sign in to get one.",
  revoked: "The access token has been revoked; sign in again to connect.",
  expired: "The access token has expired; get a new one with the refresh token, or sign in again."
}
const MALFORMED = "The Authorization header must be 'Bearer <access token>'."

/** Decodes UTF-8, taking out a byte order mark before the text (as the SDK does, reading a body itself). */
const decoder = new TextDecoder()

/** Runs a tool for the signed-in user of the request being served. */
type ToolCaller = (tool: Tool, args: Readonly<Record<string, unknown>>) => Promise<ToolOutcome>
const noCaller: ToolCaller = () => Promise.reject(new Error("a tool call outside a request"))

/** The JSON body of an in-process answer, as sent and parsed. */
const bodyOf = (response: HttpServerResponse.HttpServerResponse) =>
  Effect.map(
    // The endpoints answer JSON from memory; anything else (a stream) is read through the web response.
    response.body._tag === "Uint8Array"
      ? Effect.succeed(decoder.decode(response.body.body))
      : Effect.promise(() => HttpServerResponse.toWeb(response).text()),
    (text) => ({ text, json: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) })
  )

interface LimitHeaders {
  readonly remaining: number
  readonly headers: Readonly<Record<string, string>>
}

const requestsItem = /"requests";r=(\d+);t=(\d+)/
const editsItem = /"edits";r=(\d+);t=(\d+)/

/** The limits an answer's `RateLimit` header states (see RequestLimit.withLimitHeaders), for a tool result. */
const toolLimitsOf = (response: HttpServerResponse.HttpServerResponse): ToolLimits | undefined => {
  const field = response.headers["ratelimit"] ?? ""
  const requests = requestsItem.exec(field)
  const edits = editsItem.exec(field)
  if (requests === null || edits === null) return undefined
  return {
    requests_remaining: Number(requests[1]),
    requests_reset_seconds: Number(requests[2]),
    edits_remaining: Number(edits[1]),
    edits_reset_seconds: Number(edits[2])
  }
}

/** The request-limit headers among an answer's headers, and how many requests they leave. */
const limitHeadersOf = (fields: Readonly<Record<string, string>>): LimitHeaders | undefined => {
  const headers = Object.entries(fields).filter(([name]) => name.startsWith("ratelimit-") || name === "retry-after")
  const remaining = Number(fields["ratelimit-remaining"])
  return headers.length === 0 || !Number.isFinite(remaining)
    ? undefined
    : { remaining, headers: Object.fromEntries(headers) }
}

/**
 * The door of an agent's tool call: the signed-in user the access token stands for; `requests` counts the call (or
 * hands over the count made as the token was found) and says where that leaves the user's limit.
 */
export const toolDoor = (credential: Credential, tool: Tool, requests: Effect.Effect<RequestAllowance>) =>
  Door.of({
    authenticate: Effect.map(requests, (requests) => ({ credential, origin: "MCP", requests })),
    callName: () => ({ method: null, path: null, tool: tool.name })
  })

/**
 * A tool call, answered by the tool's endpoint through the application itself, in process, as a request of its own:
 * authentication (the signed-in user, origin MCP), the request limit (each call counts), validation, errors,
 * revisions and the call log are the endpoint's own. Arguments that cannot be made into a request at all are refused
 * here, like an HTTP request that names no route.
 */
export const answerTool = (door: Door["Type"], tool: Tool, args: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const plan = planToolRequest(tool, args)
    if (plan._tag === "Left") {
      const { status, body } = publicError(plan.left)
      const outcome: ToolOutcome = { _tag: "Error", status, body, text: JSON.stringify(body) }
      return { outcome, limits: undefined }
    }
    const request = HttpServerRequest.fromWeb(toolRequest(plan.right))
    const response = yield* answerInProcess(request, Context.make(Door, door))
    const { text, json } = yield* bodyOf(response)
    const stated = toolLimitsOf(response)
    const limits = stated === undefined ? {} : { limits: stated }
    const outcome: ToolOutcome =
      response.status >= 200 && response.status < 300
        ? { _tag: "Ok", data: json, text, ...limits }
        : { _tag: "Error", status: response.status, body: json, text, ...limits }
    return { outcome, limits: limitHeadersOf(response.headers) }
  })

/**
 * The server's answer to the protocol's: a JSON answer read whole and sent as it is (a stream read chunk by chunk
 * through the platform costs more than the call it carries); an event stream passed on as it comes.
 */
const serverResponseOf = (response: Response) => {
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

/** The revisions of the protocol whose JSON-RPC messages may come in batches; 2025-06-18 removed them. */
const batchRevisions = new Set(["2024-10-07", "2024-11-05", "2025-03-26"])

/**
 * The revision a POST speaks: its `MCP-Protocol-Version` header, else the one an initialize request asks for, else
 * 2025-03-26 (what the specification has a server assume when a request names none).
 */
const revisionOf = (headers: Readonly<Record<string, string | undefined>>, messages: ReadonlyArray<unknown>) => {
  const initialize = messages.find(
    (message): message is { params: { protocolVersion: unknown } } =>
      isJSONRPCRequest(message) && message.method === "initialize"
  )
  const asked = initialize?.params?.protocolVersion
  return headers["mcp-protocol-version"] ?? (typeof asked === "string" ? asked : "2025-03-26")
}

/**
 * `POST /mcp`: the agent interface over Streamable HTTP, stateless (a fresh MCP server per request, so any instance
 * can answer). The caller is the user an OAuth access token stands for. Each tool call is a request of its own
 * through the application (see `answerTool`), counted against the user's request limit when it is answered, so a
 * batch of N calls counts N; the protocol messages of a POST (initialize, tools/list, notifications, a call that
 * cannot be made) count once for the POST. Batches are taken from clients that speak a revision that has them.
 */
export const McpRoutesLive = (tools: ReadonlyArray<Tool>) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const tokens = yield* AccessTokens
      const limits = yield* Limits
      const failures = yield* AuthFailures
      const base = yield* PublicUrl
      const baseOf = yield* RequestBase
      const hosts = ownHosts(base)
      const { mcpAllowedOrigins } = yield* AppConfig
      const browser = mcpBrowsers(base, mcpAllowedOrigins)

      /**
       * The cards as a client that named the service by `requestBase` reads them: their images may come from the
       * address it used (the rule that names the protected resource) and from the public address that uploaded
       * images' addresses were written with, when that is another. Written once per base, and `RequestBase` names
       * only a few (PUBLIC_BASE_URL, or the loopback addresses and the default).
       */
      const cardsByBase = new Map<string, Cards>()
      const cardsFor = (requestBase: string) => {
        const written = cardsByBase.get(requestBase)
        if (written !== undefined) return written
        const cards = makeCards([...new Set([new URL(requestBase).origin, new URL(base).origin])])
        cardsByBase.set(requestBase, cards)
        return cards
      }

      /**
       * 401 with the challenge that points to the metadata named after the base URL the client used (see
       * `RequestBase`); a token that was sent and refused adds `invalid_token` and says why (RFC 6750 §3).
       */
      const unauthorized = (request: HttpServerRequest.HttpServerRequest, refused: string | undefined) =>
        errorResponse(new Unauthorized({ message: refused ?? "Sign in: this endpoint needs an OAuth access token." }), {
          "www-authenticate": `Bearer resource_metadata="${resourceMetadataUrl(baseOf(request))}", scope="${CHALLENGE_SCOPE}"${
            refused === undefined ? "" : `, error="invalid_token", error_description="${refused}"`
          }`
        })

      /**
       * A token that was sent and refused: 401 saying why, or 429 when its client address has failed too often this
       * minute. Only refused tokens come here, so a valid one never waits on it.
       */
      const refusedToken = (request: HttpServerRequest.HttpServerRequest, token: string, now: number) =>
        Effect.gen(function* () {
          const throttled = yield* failures.count(request)
          if (Option.isSome(throttled)) {
            return errorResponse(throttled.value.error, { "retry-after": String(throttled.value.retryAfter) })
          }
          return unauthorized(request, tokenRefusals[yield* tokens.refusal(token, now)])
        })

      /** Whether a message is a request of its own: a call of a known tool with arguments that make a request. */
      const entersPipeline = (message: unknown) => {
        const call = toolCallOf(message)
        return call !== undefined && Either.isRight(planToolRequest(call.tool, call.args))
      }

      /** The known tool a message calls, with its arguments when they are an object. */
      const toolCallOf = (message: unknown) => {
        if (!isJSONRPCRequest(message) || message.method !== "tools/call") return undefined
        const params = message.params as { readonly name?: unknown; readonly arguments?: unknown } | undefined
        const args = params?.arguments ?? {}
        if (typeof params?.name !== "string" || typeof args !== "object" || args === null || Array.isArray(args)) {
          return undefined
        }
        const tool = tools.find((candidate) => candidate.name === params.name)
        return tool === undefined ? undefined : { tool, args: args as Record<string, unknown> }
      }

      const serverFor = (options: McpHandlerRequestOptions) =>
        makeMcpServer(
          tools,
          (options.authInfo?.extra?.["call"] as ToolCaller | undefined) ?? noCaller,
          (options.authInfo?.extra?.["cards"] as Cards | undefined) ?? cardsFor(base)
        )

      /**
       * 2026-07-28 requests: each carries its own envelope; `server/discover` is answered; the Mcp-Method and Mcp-Name
       * headers are checked against the body (a request whose headers disagree with it is refused).
       */
      const modern = createMcpHandler(
        (context) => serverFor({ ...(context.authInfo ? { authInfo: context.authInfo } : {}) }),
        {
          legacy: "reject",
          maxRequestBodySize: MAX_MCP_BODY_BYTES
        }
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

      /** Every revision a client may speak, each by the SDK's own classification of the request. */
      const answerMcp = async (request: Request, options: McpHandlerRequestOptions) =>
        (await isLegacyRequest(request, options.parsedBody, { maxRequestBodySize: MAX_MCP_BODY_BYTES }))
          ? legacy(request, options)
          : modern.fetch(request, options)

      /** Whether a message calls a tool that changes an article (its endpoint is not a GET). */
      const callsWriteTool = (message: unknown) => toolCallOf(message)?.tool.annotations.readOnlyHint === false

      /**
       * A write by a connection allowed to read only: HTTP 403 with the specification's insufficient-scope challenge,
       * so that a client can ask the person to allow editing (a step-up), and nothing in the request runs.
       */
      const insufficientScope = (request: HttpServerRequest.HttpServerRequest) =>
        HttpServerResponse.unsafeJson(
          {
            jsonrpc: "2.0",
            id: null,
            error: {
              code: -32000,
              message:
                "This connection may only read. Ask the person to connect again and choose Read and edit (scope content:write)."
            }
          },
          {
            status: 403,
            headers: {
              "www-authenticate": `Bearer error="insufficient_scope", scope="${WRITE_SCOPE}", resource_metadata="${resourceMetadataUrl(baseOf(request))}", error_description="This connection may only read."`
            }
          }
        )

      /**
       * DNS-rebinding protection: a request must name this service as its host, and any origin must be its own or
       * one MCP_ALLOWED_ORIGINS names.
       */
      const foreignHostOrOrigin = (request: HttpServerRequest.HttpServerRequest) => {
        const host = request.headers["host"]
        const origin = request.headers["origin"]
        if (host === undefined || !hosts.includes(host)) return `Invalid Host header: ${host ?? "(none)"}`
        if (origin !== undefined && !browser.allows(origin)) return `Invalid Origin header: ${origin}`
        return undefined
      }

      const handle = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = Option.flatten(bearerToken(request.headers))
        if (Option.isNone(token)) {
          return unauthorized(request, request.headers["authorization"] === undefined ? undefined : MALFORMED)
        }
        // Read as bytes: the platform reads `text` in a fiber of its own.
        const text = decoder.decode(yield* request.arrayBuffer)
        // The whole JSON-RPC message counts, envelope included.
        yield* refuseDeepJson(text)
        const parsed = Either.try(() => JSON.parse(text) as unknown)
        const messages = Either.match(parsed, {
          onLeft: () => [undefined],
          onRight: (body) => (Array.isArray(body) ? body : [body])
        })
        // A batch the revision has none of is refused before the token is looked up: it runs nothing and counts
        // nothing.
        if (Either.isRight(parsed) && Array.isArray(parsed.right)) {
          const revision = revisionOf(request.headers, messages)
          if (!batchRevisions.has(revision)) return batchRefused(revision)
        }
        const window = yield* limits.currentWindow
        // The statement that finds the token counts a request of its user: the POST's own, or its first call's.
        const found = yield* tokens.verifyCounting(token.value, window)
        if (Option.isNone(found)) return yield* refusedToken(request, token.value, window.now)
        const credential = found.value.credential
        const counted = yield* limits.allowanceAfter(credential, window, found.value.count, found.value.edits)
        const rebinding = foreignHostOrOrigin(request)
        if (rebinding !== undefined) return jsonRpcError(403, -32000, rebinding)
        if (!credential.canWrite && messages.some(callsWriteTool)) return insufficientScope(request)
        // The answer carries the request-limit headers of the request (the POST's own, or a call's) that left the
        // fewest requests.
        let fewest: LimitHeaders | undefined
        const keep = (headers: LimitHeaders | undefined) => {
          if (headers !== undefined && (fewest === undefined || headers.remaining <= fewest.remaining)) fewest = headers
        }
        // When every message is a call, the count made with the token is the first call's; otherwise it is the
        // POST's, and each call counts for itself.
        const postLimits = () => limitHeadersOf(limitHeaders(counted, limits.editsPerDay))
        let handOver: RequestAllowance | undefined = messages.every(entersPipeline) ? counted : undefined
        if (handOver === undefined) {
          if (counted.exceeded) {
            return withLimitHeaders(errorResponse(rateLimited(counted)), counted, limits.editsPerDay)
          }
          keep(postLimits())
        }
        const countCall = Effect.suspend(() => {
          const allowance = handOver
          handOver = undefined
          return allowance === undefined ? limits.countRequest(credential) : Effect.succeed(allowance)
        })
        const run = Runtime.runPromise(yield* Effect.runtime<never>())
        const call = (tool: Tool, args: Readonly<Record<string, unknown>>) =>
          run(
            answerTool(toolDoor(credential, tool, countCall), tool, args) as Effect.Effect<{
              readonly outcome: ToolOutcome
              readonly limits: LimitHeaders | undefined
            }>
          ).then(({ outcome, limits }) => {
            keep(limits)
            return outcome
          })
        const response = yield* Effect.promise(() => {
          const headers = new Headers()
          for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers.set(name, value)
          // The SDK reads the body only when it is not handed over parsed (when it is not JSON, and is refused).
          const body = Either.isRight(parsed) ? null : text
          const webRequest = new Request(`${baseOf(request)}/mcp`, { method: "POST", headers, body })
          return answerMcp(webRequest, {
            authInfo: {
              token: token.value,
              clientId: "",
              scopes: (credential.canWrite ? READ_AND_EDIT : READ_ONLY).split(" "),
              extra: { call, cards: cardsFor(baseOf(request)) }
            },
            ...(Either.isRight(parsed) ? { parsedBody: parsed.right } : {})
          })
        })
        // No call took the count made with the token (the protocol refused the message): it is the POST's.
        if (handOver !== undefined) keep(postLimits())
        return HttpServerResponse.setHeaders(yield* serverResponseOf(response), fewest?.headers ?? {})
      }).pipe(Effect.catchTags({ ValidationError: (error) => Effect.succeed(errorResponse(error)) }))

      /** A JSON-RPC error answered before any message of the request is read as one. */
      const jsonRpcError = (status: number, code: number, message: string) =>
        HttpServerResponse.unsafeJson({ jsonrpc: "2.0", id: null, error: { code, message } }, { status })

      /** A batch from a client whose revision has none: refused whole, before anything in it runs. */
      const batchRefused = (revision: string) =>
        jsonRpcError(
          400,
          INVALID_REQUEST,
          `Invalid Request: MCP revision ${revision} has no JSON-RPC batches; send one message per request.`
        )

      const methodNotAllowed = Effect.succeed(
        errorResponse(
          new MethodNotAllowed({ message: "This endpoint is stateless: send JSON-RPC messages with POST." }),
          { allow: "POST, OPTIONS" }
        )
      )

      yield* router.post("/mcp", browser.answer(handle))
      yield* router.get("/mcp", browser.answer(methodNotAllowed))
      yield* router.del("/mcp", browser.answer(methodNotAllowed))
      yield* router.options("/mcp", browser.preflight)
    })
  )
