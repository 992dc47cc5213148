import { HttpApiBuilder, HttpIncomingMessage, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { Clock, Effect, Exit, Option, Runtime } from "effect"
import { AuditLog } from "../Audit.js"
import type { Credential } from "../Auth/CurrentCredential.js"
import { withLimitHeaders } from "../Auth/Http.js"
import { publicError } from "../Domain/Errors.js"
import { PublicUrl } from "../Http/PublicUrl.js"
import { RequestId } from "../Http/RequestId.js"
import { Limits } from "../Limits.js"
import { AccessTokens } from "../OAuth/AccessTokens.js"
import { MCP_SCOPE, resourceMetadataUrl } from "../OAuth/Metadata.js"
import { makeMcpServer, type ToolOutcome } from "./Server.js"
import { makeTools, type Tool, type ToolServices } from "./Tools.js"

/** Largest request to /mcp: a 10 MiB image as base64 and its JSON-RPC envelope. */
const MAX_MCP_BODY_BYTES = 16 * 1024 * 1024

const corsHeaders: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id",
  "access-control-expose-headers": "WWW-Authenticate, Mcp-Session-Id",
  "access-control-max-age": "86400"
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { ...corsHeaders, ...headers } })

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"])

/**
 * Hosts (and browser origins) the endpoint answers to, from the configured public base URL: a request naming any
 * other host is a DNS-rebinding attempt. A loopback base URL also admits the other loopback names on its port.
 */
export const allowedHostsOf = (base: string) => {
  const url = new URL(base)
  const port = url.port === "" ? "" : `:${url.port}`
  const hosts = loopbackHosts.has(url.hostname) ? [...loopbackHosts].map((host) => `${host}${port}`) : [url.host]
  const origins = hosts.map((host) => `${url.protocol}//${host}`)
  return { hosts, origins }
}

/** The bearer token of a request; query-string tokens are never accepted. */
const bearerToken = (headers: Readonly<Record<string, string | undefined>>) =>
  Option.flatMapNullable(
    Option.fromNullable(headers["authorization"]),
    (value) => /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value)?.[1]
  )

/**
 * `POST /mcp`: the agent interface over Streamable HTTP, stateless (a fresh MCP server per request, so any
 * instance can answer). The caller is the user an OAuth access token stands for; each request counts against
 * that user's request limit, and each tool call runs the code path of its endpoint and is recorded with
 * origin MCP.
 */
export const McpRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const tokens = yield* AccessTokens
    const limits = yield* Limits
    const audit = yield* AuditLog
    const base = yield* PublicUrl
    const runtime = yield* Effect.runtime<ToolServices>()
    const tools = makeTools()
    const allowed = allowedHostsOf(base)
    const challenge = (extra: string) =>
      `Bearer resource_metadata="${resourceMetadataUrl(base)}", scope="${MCP_SCOPE}"${extra}`

    /** Runs one tool call and records it; never fails (errors become the outcome). */
    const callTool = (credential: Credential, requestId: string, tool: Tool, args: unknown) =>
      Effect.gen(function* () {
        const started = yield* Clock.currentTimeMillis
        const exit = yield* Effect.exit(tool.run(credential, args))
        const outcome: ToolOutcome = Exit.match(exit, {
          onSuccess: (data) => ({ _tag: "Ok", data: data as Record<string, unknown> }),
          onFailure: (cause) => {
            const failure = cause._tag === "Fail" ? cause.error : undefined
            return { _tag: "Error", ...publicError(failure) }
          }
        })
        if (Exit.isFailure(exit) && outcome._tag === "Error" && outcome.status === 500) {
          yield* Effect.logError("Tool call failed", exit.cause)
        }
        const ended = yield* Clock.currentTimeMillis
        yield* audit.record({
          at: new Date(started).toISOString(),
          account_id: credential.accountId,
          api_key_id: null,
          user_id: credential.id,
          origin: "MCP",
          method: null,
          path: null,
          tool: tool.name,
          article_id: tool.articleOf(args),
          status: outcome._tag === "Ok" ? 200 : outcome.status,
          duration_ms: Math.max(0, Math.round(ended - started)),
          request_id: requestId === "" ? null : requestId
        })
        return outcome
      })

    const handle = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const declared = Number(request.headers["content-length"] ?? "0")
      if (Number.isFinite(declared) && declared > MAX_MCP_BODY_BYTES) {
        return json(413, {
          error: "payload_too_large",
          message: `The request body is larger than ${MAX_MCP_BODY_BYTES} bytes.`,
          limit: MAX_MCP_BODY_BYTES
        })
      }
      const token = bearerToken(request.headers)
      const credential = Option.isNone(token) ? Option.none() : yield* tokens.verify(token.value)
      if (Option.isNone(credential)) {
        const sent = Option.isSome(token) || request.headers["authorization"] !== undefined
        return json(
          401,
          { error: "unauthorized", message: "Sign in: this endpoint needs an OAuth access token." },
          { "www-authenticate": challenge(sent ? `, error="invalid_token"` : "") }
        )
      }
      const allowance = yield* limits.countRequest(credential.value)
      if (allowance.exceeded) {
        const body = {
          error: "rate_limited",
          message: `More than ${allowance.limit} requests in a minute.`,
          limit: allowance.limit
        }
        return withLimitHeaders(json(429, body), allowance, limits.editsPerDay)
      }
      const requestId = yield* RequestId
      const text = yield* request.text.pipe(HttpIncomingMessage.withMaxBodySize(Option.some(MAX_MCP_BODY_BYTES)))
      const headers = new Headers()
      for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers.set(name, value)
      const webRequest = new Request(`${base}/mcp`, { method: "POST", headers, body: text })
      const run = Runtime.runPromise(runtime)
      const response = yield* Effect.promise(async () => {
        const server = makeMcpServer(tools, (tool, args) => run(callTool(credential.value, requestId, tool, args)))
        const transport = new WebStandardStreamableHTTPServerTransport({
          enableJsonResponse: true,
          enableDnsRebindingProtection: true,
          allowedHosts: allowed.hosts,
          allowedOrigins: allowed.origins
        })
        await server.connect(transport)
        try {
          return await transport.handleRequest(webRequest, {
            authInfo: { token: token.pipe(Option.getOrElse(() => "")), clientId: "", scopes: [MCP_SCOPE] }
          })
        } finally {
          await server.close()
        }
      })
      const answered = HttpServerResponse.setHeaders(HttpServerResponse.fromWeb(response), corsHeaders)
      return withLimitHeaders(answered, allowance, limits.editsPerDay)
    }).pipe(
      Effect.catchTag("RequestError", () =>
        Effect.succeed(
          json(413, {
            error: "payload_too_large",
            message: "The request body could not be read.",
            limit: MAX_MCP_BODY_BYTES
          })
        )
      )
    )

    const methodNotAllowed = Effect.succeed(
      json(
        405,
        { error: "method_not_allowed", message: "This endpoint is stateless: send JSON-RPC messages with POST." },
        { allow: "POST, OPTIONS" }
      )
    )

    yield* router.post("/mcp", handle)
    yield* router.get("/mcp", methodNotAllowed)
    yield* router.del("/mcp", methodNotAllowed)
    yield* router.options("/mcp", Effect.succeed(HttpServerResponse.empty({ status: 204, headers: corsHeaders })))
  })
)
