import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Effect, Option, Predicate, Ref } from "effect"
import { Door, type RequestAllowance } from "../Api/Middleware.js"
import type { Credential } from "../Domain/Credential.js"
import { publicError } from "../Domain/Errors.js"
import type { CallLimits } from "./Budget.js"
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

/** Where a call left the limits, as its tool result's `_meta` states them. */
const toolLimitsOf = (allowance: RequestAllowance): ToolLimits => ({
  requests_remaining: allowance.remaining,
  requests_reset_seconds: allowance.reset,
  edits_remaining: allowance.editsRemaining,
  edits_reset_seconds: allowance.editsReset
})

/**
 * Whether `credential` may call `tool`: every credential may read; one that may only read (scope content:read, or a
 * read-only key) calls no tool that changes an article.
 */
export const mayCall = (credential: Credential, tool: Tool) => credential.canWrite || tool.annotations.readOnlyHint

/** The tools `credential` may call: all that its tool list shows. */
export const toolsFor = (tools: ReadonlyArray<Tool>, credential: Credential) =>
  tools.filter((tool) => mayCall(credential, tool))

/** The door of a tool call as its caller makes it; `answerTool` hears where the call left the limits itself. */
export type ToolDoor = Omit<Door["Type"], "limitsLeft">

/**
 * The door of an agent's tool call: the signed-in user the access token stands for; `requests` counts the call (or
 * hands over the count made as the token was found) and says where that leaves the user's limit.
 */
export const toolDoor = (credential: Credential, tool: Tool, requests: Effect.Effect<RequestAllowance>): ToolDoor => ({
  authenticate: Effect.map(requests, (requests) => ({ credential, origin: "MCP", requests })),
  callName: () => ({ method: null, path: null, tool: tool.name })
})

/**
 * A tool call, answered by the tool's endpoint through the application itself, in process, as a request of its own:
 * authentication (the signed-in user, origin MCP), the request limit (each call counts), validation, errors,
 * revisions and the call log are the endpoint's own; the request limit tells the door where the call left the
 * limits, which the outcome carries. Arguments that cannot be made into a request at all are refused here, like an
 * HTTP request that names no route.
 */
export const answerTool = (door: ToolDoor, tool: Tool, args: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const plan = planToolRequest(tool, args)
    if (plan._tag === "Left") {
      const { status, body } = publicError(plan.left)
      const outcome: ToolOutcome = { _tag: "Error", status, body, text: JSON.stringify(body) }
      return { outcome, limits: undefined }
    }
    const left = yield* Ref.make(Option.none<RequestAllowance>())
    const heard = Door.of({ ...door, limitsLeft: (allowance) => Ref.set(left, Option.some(allowance)) })
    const request = HttpServerRequest.fromWeb(toolRequest(plan.right))
    const response = yield* answerInProcess(request, Context.make(Door, heard))
    const { text, json } = yield* bodyOf(response)
    const allowance = Option.getOrUndefined(yield* Ref.get(left))
    const stated = allowance === undefined ? {} : { limits: toolLimitsOf(allowance) }
    const outcome: ToolOutcome =
      response.status >= 200 && response.status < 300
        ? { _tag: "Ok", data: json, text, ...stated }
        : { _tag: "Error", status: response.status, body: json, text, ...stated }
    const limits: CallLimits | undefined =
      allowance === undefined ? undefined : { allowance, retryAfter: response.headers["retry-after"] }
    return { outcome, limits }
  })
