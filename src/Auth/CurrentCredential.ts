import { Context, Effect, Option } from "effect"
import type { CallOrigin, Credential } from "../Domain/Credential.js"

/** The credential of the request being served, provided by the `Authentication` middleware. */
export class CurrentCredential extends Context.Tag("Auth/CurrentCredential")<CurrentCredential, Credential>() {}

/**
 * An agent's tool call, answered by the API in process: the signed-in user it runs for and the tool's name. It
 * travels in the request's context, never in a header, so no request from outside can claim it.
 */
export class ToolCaller extends Context.Tag("Auth/ToolCaller")<
  ToolCaller,
  { readonly credential: Credential; readonly tool: string }
>() {}

/** The door of the request being served: MCP for a tool call answered in process, API otherwise. */
export const currentOrigin: Effect.Effect<CallOrigin> = Effect.map(
  Effect.serviceOption(ToolCaller),
  (caller): CallOrigin => (Option.isSome(caller) ? "MCP" : "API")
)
