import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { Context, Effect, Option, Runtime } from "effect"
import { bearerToken } from "../Auth/Authentication.js"
import { ToolCaller } from "../Auth/CurrentCredential.js"
import type { Credential } from "../Domain/Credential.js"
import { MethodNotAllowed, publicError, Unauthorized } from "../Domain/Errors.js"
import { errorResponse } from "../Http/ErrorResponse.js"
import { answerInProcess } from "../Http/InProcess.js"
import { ownHosts, ownOrigins } from "../Http/Origins.js"
import { PublicUrl } from "../Http/PublicUrl.js"
import { MAX_MCP_BODY_BYTES, refuseDeepJson } from "../Http/RequestBodies.js"
import { admitRequest } from "../Limits/RequestLimit.js"
import { Limits } from "../Limits.js"
import { AccessTokens } from "../OAuth/AccessTokens.js"
import { MCP_SCOPE, resourceMetadataUrl } from "../OAuth/Metadata.js"
import { refuseInvalidParams } from "./InvalidParams.js"
import { makeMcpServer, type ToolOutcome } from "./Server.js"
import { toolRequest } from "./ToolRequest.js"
import type { Tool } from "./Tools.js"

const corsHeaders: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id",
  "access-control-expose-headers": "WWW-Authenticate, Mcp-Session-Id",
  "access-control-max-age": "86400"
}

/** The JSON body of an in-process answer. */
const bodyOf = (response: HttpServerResponse.HttpServerResponse) =>
  Effect.promise(async () => {
    const text = await HttpServerResponse.toWeb(response).text()
    return text === "" ? {} : (JSON.parse(text) as Record<string, unknown>)
  })

/**
 * A tool call, answered by the tool's endpoint through the application itself, in process, for the signed-in user:
 * authentication, validation, limits, errors, revisions and the call log are the endpoint's own.
 */
export const answerTool = (credential: Credential, tool: Tool, args: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const request = toolRequest(tool, args)
    if (request._tag === "Left") return { _tag: "Error", ...publicError(request.left) } satisfies ToolOutcome
    const response = yield* answerInProcess(
      HttpServerRequest.fromWeb(request.right),
      Context.make(ToolCaller, { credential, tool: tool.name })
    )
    const body = yield* bodyOf(response)
    return response.status >= 200 && response.status < 300
      ? ({ _tag: "Ok", data: body } satisfies ToolOutcome)
      : ({ _tag: "Error", status: response.status, body } satisfies ToolOutcome)
  })

/**
 * `POST /mcp`: the agent interface over Streamable HTTP, stateless (a fresh MCP server per request, so any instance
 * can answer). The caller is the user an OAuth access token stands for; each request counts against that user's
 * request limit, and each tool call runs through its endpoint (see `answerTool`).
 */
export const McpRoutesLive = (tools: ReadonlyArray<Tool>) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const tokens = yield* AccessTokens
      const limits = yield* Limits
      const base = yield* PublicUrl
      const allowed = { hosts: [...ownHosts(base)], origins: [...ownOrigins(base)] }

      const unauthorized = (sent: boolean) =>
        errorResponse(new Unauthorized({ message: "Sign in: this endpoint needs an OAuth access token." }), {
          ...corsHeaders,
          "www-authenticate": `Bearer resource_metadata="${resourceMetadataUrl(base)}", scope="${MCP_SCOPE}"${
            sent ? `, error="invalid_token"` : ""
          }`
        })

      const handle = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = Option.flatten(bearerToken(request.headers))
        const credential = Option.isNone(token) ? Option.none() : yield* tokens.verify(token.value)
        if (Option.isNone(credential)) return unauthorized(request.headers["authorization"] !== undefined)
        yield* admitRequest(limits, credential.value)
        const text = yield* request.text
        // The whole JSON-RPC message counts, envelope included.
        yield* refuseDeepJson(text)
        const run = Runtime.runPromise(yield* Effect.runtime<never>())
        const call = (tool: Tool, args: Readonly<Record<string, unknown>>) =>
          run(answerTool(credential.value, tool, args) as Effect.Effect<ToolOutcome>)
        const response = yield* Effect.promise(async () => {
          const server = makeMcpServer(tools, call)
          const transport = new WebStandardStreamableHTTPServerTransport({
            enableJsonResponse: true,
            enableDnsRebindingProtection: true,
            allowedHosts: allowed.hosts,
            allowedOrigins: allowed.origins,
            maxRequestBodySize: MAX_MCP_BODY_BYTES
          })
          await server.connect(transport)
          refuseInvalidParams(transport)
          try {
            const headers = new Headers()
            for (const [name, value] of Object.entries(request.headers))
              if (value !== undefined) headers.set(name, value)
            const webRequest = new Request(`${base}/mcp`, { method: "POST", headers, body: text })
            return await transport.handleRequest(webRequest, {
              authInfo: { token: Option.getOrElse(token, () => ""), clientId: "", scopes: [MCP_SCOPE] }
            })
          } finally {
            await server.close()
          }
        })
        return HttpServerResponse.setHeaders(HttpServerResponse.fromWeb(response), corsHeaders)
      }).pipe(
        Effect.catchTags({
          RateLimited: (error) => Effect.succeed(errorResponse(error, corsHeaders)),
          ValidationError: (error) => Effect.succeed(errorResponse(error, corsHeaders))
        })
      )

      const methodNotAllowed = Effect.succeed(
        errorResponse(
          new MethodNotAllowed({ message: "This endpoint is stateless: send JSON-RPC messages with POST." }),
          { ...corsHeaders, allow: "POST, OPTIONS" }
        )
      )

      yield* router.post("/mcp", handle)
      yield* router.get("/mcp", methodNotAllowed)
      yield* router.del("/mcp", methodNotAllowed)
      yield* router.options("/mcp", Effect.succeed(HttpServerResponse.empty({ status: 204, headers: corsHeaders })))
    })
  )
