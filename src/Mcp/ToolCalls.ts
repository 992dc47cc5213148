import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Effect, Predicate } from "effect"
import { Door, type RequestAllowance } from "../Api/Middleware.js"
import type { Credential } from "../Domain/Credential.js"
import { publicError } from "../Domain/Errors.js"
import { answerInProcess } from "./InProcess.js"
import type { ToolLimits, ToolOutcome } from "./Server.js"
import { planToolRequest, toolRequest } from "./ToolRequest.js"
import type { Tool } from "./Tools.js"

/** Decodes UTF-8, taking out a byte order mark before the text (as the SDK does, reading a body itself). */
export const decoder = new TextDecoder()

/** The JSON body of an in-process answer, as sent and parsed (an object; anything else reads as an empty one). */
const bodyOf = (response: HttpServerResponse.HttpServerResponse) =>
  Effect.map(
    // The endpoints answer JSON from memory; anything else (a stream) is read through the web response.
    response.body._tag === "Uint8Array"
      ? Effect.succeed(decoder.decode(response.body.body))
      : Effect.promise(() => HttpServerResponse.toWeb(response).text()),
    (text) => {
      const json: unknown = text === "" ? {} : JSON.parse(text)
      return { text, json: Predicate.isRecord(json) ? json : {} }
    }
  )

/** The request-limit headers of an answer, and how many requests they leave. */
export interface LimitHeaders {
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
export const limitHeadersOf = (fields: Readonly<Record<string, string>>): LimitHeaders | undefined => {
  const headers = Object.entries(fields).filter(([name]) => name.startsWith("ratelimit-") || name === "retry-after")
  const remaining = Number(fields["ratelimit-remaining"])
  return headers.length === 0 || !Number.isFinite(remaining)
    ? undefined
    : { remaining, headers: Object.fromEntries(headers) }
}

/**
 * Whether `credential` may call `tool`: every credential may read; one that may only read (scope content:read, or a
 * read-only key) calls no tool that changes an article.
 */
export const mayCall = (credential: Credential, tool: Tool) => credential.canWrite || tool.annotations.readOnlyHint

/** The tools `credential` may call: all that its tool list shows. */
export const toolsFor = (tools: ReadonlyArray<Tool>, credential: Credential) =>
  tools.filter((tool) => mayCall(credential, tool))

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
