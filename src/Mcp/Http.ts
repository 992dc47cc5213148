import { HttpApiBuilder, type HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Option, Runtime } from "effect"
import { bearerToken } from "../Auth/Authentication.js"
import { AppConfig } from "../Config.js"
import type { Credential } from "../Domain/Credential.js"
import { errorResponse } from "../Http/ErrorResponse.js"
import { ownHosts } from "../Http/Origins.js"
import { PublicUrl, RequestBase } from "../Http/PublicUrl.js"
import { refuseDeepJson } from "../Http/RequestBodies.js"
import { AuthFailures } from "../Limits/AuthFailures.js"
import { Limits } from "../Limits/Limits.js"
import { rateLimited, withLimitHeaders } from "../Limits/RequestLimit.js"
import { AccessTokens } from "../OAuth/AccessTokens.js"
import { READ_AND_EDIT, READ_ONLY } from "../OAuth/Scopes.js"
import { mcpBrowsers } from "./Browsers.js"
import { makePostBudget } from "./Budget.js"
import { type Cards, makeCards } from "./Cards.js"
import { ApplicationApp } from "./InProcess.js"
import { jsonRpcError, makeProtocol, refusedBatch, serverResponseOf, type ToolCaller, toolCallOf } from "./Protocol.js"
import { MALFORMED, mcpRefusals, methodNotAllowed, tokenRefusals } from "./Refusals.js"
import { answerTool, decoder, mayCall, toolDoor, toolsFor } from "./ToolCalls.js"
import { planToolRequest } from "./ToolRequest.js"
import type { Tool } from "./Tools.js"

/**
 * `POST /mcp`: the agent interface over Streamable HTTP, stateless (a fresh MCP server per request, so any instance
 * can answer; see Protocol.ts). The caller is the user an OAuth access token stands for. Each tool call is a request
 * of its own through the application (see `answerTool`), counted against the user's request limit when it is
 * answered, so a batch of N calls counts N; the protocol messages of a POST (initialize, tools/list, notifications, a
 * call that cannot be made) count once for the POST (see Budget.ts). Batches are taken from clients that speak a
 * revision that has them. This module holds the HTTP side: the host and origin checks, the bearer token, the scope.
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
      const { unauthorized, insufficientScope } = mcpRefusals(baseOf)

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

      const answerMcp = makeProtocol(tools, cardsFor(base))

      /**
       * A token that was sent and refused: 401 saying why, or 429 when its client address has failed too often this
       * minute. Only refused tokens come here, so a valid one never waits on it.
       */
      const refusedToken = (request: HttpServerRequest.HttpServerRequest, token: string, now: number) =>
        Effect.gen(function* () {
          const throttled = yield* failures.count(request)
          if (Option.isSome(throttled)) return errorResponse(throttled.value)
          return unauthorized(request, tokenRefusals[yield* tokens.refusal(token, now)])
        })

      /** Whether a message is a request of its own: a call of a known tool with arguments that make a request. */
      const entersPipeline = (message: unknown) => {
        const call = toolCallOf(tools, message)
        return call !== undefined && Either.isRight(planToolRequest(call.tool, call.args))
      }

      /** Whether a message calls a tool that `credential` may not call (one that changes an article). */
      const callsForbiddenTool = (credential: Credential) => (message: unknown) => {
        const call = toolCallOf(tools, message)
        return call !== undefined && !mayCall(credential, call.tool)
      }

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
        const parsed = Either.try((): unknown => JSON.parse(text))
        const messages = Either.match(parsed, {
          onLeft: () => [undefined],
          onRight: (body) => (Array.isArray(body) ? body : [body])
        })
        // A batch the revision has none of is refused before the token is looked up: it runs nothing and counts
        // nothing.
        if (Either.isRight(parsed) && Array.isArray(parsed.right)) {
          const refused = refusedBatch(request.headers, messages)
          if (refused !== undefined) return refused
        }
        const window = yield* limits.currentWindow
        // The statement that finds the token counts a request of its user: the POST's own, or its first call's.
        const found = yield* tokens.verifyCounting(token.value, window)
        if (Option.isNone(found)) return yield* refusedToken(request, token.value, window.now)
        const credential = found.value.credential
        const counted = yield* limits.allowanceAfter(credential, window, found.value.count, found.value.edits)
        const rebinding = foreignHostOrOrigin(request)
        if (rebinding !== undefined) return jsonRpcError(403, -32000, rebinding)
        if (messages.some(callsForbiddenTool(credential))) return insufficientScope(request)
        const handOver = messages.every(entersPipeline)
        if (!handOver && counted.exceeded) {
          return withLimitHeaders(errorResponse(rateLimited(counted)), counted, limits.editsPerDay)
        }
        const budget = yield* makePostBudget({
          counted,
          editsPerDay: limits.editsPerDay,
          handOver,
          countRequest: limits.countRequest(credential)
        })
        // The tool calls run on this request's runtime (its context holds the application they are answered by).
        const app = yield* Effect.serviceOption(ApplicationApp)
        if (Option.isNone(app)) return yield* Effect.dieMessage("/mcp is served without the application")
        const runtime = yield* Effect.runtime<HttpRouter.HttpRouter.DefaultServices>()
        // The SDK calls the tools as promises; the calls still running when this POST's scope closes (it was
        // interrupted) are interrupted with it.
        const calls = yield* Effect.acquireRelease(
          Effect.sync(() => new AbortController()),
          (controller) => Effect.sync(() => controller.abort())
        )
        const call: ToolCaller = (tool, args) =>
          Runtime.runPromise(runtime)(
            answerTool(toolDoor(credential, tool, budget.countCall), tool, args).pipe(
              Effect.tap(({ limits }) => budget.note(limits)),
              Effect.map(({ outcome }) => outcome),
              Effect.provideService(ApplicationApp, app.value)
            ),
            { signal: calls.signal }
          )
        const headers = new Headers()
        for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers.set(name, value)
        // The SDK reads the body only when it is not handed over parsed (when it is not JSON, and is refused).
        const body = Either.isRight(parsed) ? null : text
        const webRequest = new Request(`${baseOf(request)}/mcp`, { method: "POST", headers, body })
        const response = yield* answerMcp(
          webRequest,
          { token: token.value, scopes: (credential.canWrite ? READ_AND_EDIT : READ_ONLY).split(" ") },
          { tools: toolsFor(tools, credential), call, cards: cardsFor(baseOf(request)) },
          Either.getRight(parsed)
        )
        return HttpServerResponse.setHeaders(yield* serverResponseOf(response), yield* budget.headers)
      }).pipe(Effect.catchTags({ ValidationError: (error) => Effect.succeed(errorResponse(error)) }))

      yield* router.post("/mcp", browser.answer(handle))
      yield* router.get("/mcp", browser.answer(Effect.succeed(methodNotAllowed)))
      yield* router.del("/mcp", browser.answer(Effect.succeed(methodNotAllowed)))
      yield* router.options("/mcp", browser.preflight)
    })
  )
