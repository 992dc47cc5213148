import { Context } from "effect"

/**
 * The cards an assistant's app can show a tool's result in (MCP Apps; src/Mcp/Cards.ts serves them): a change to an
 * article (its preview or the revision it made), or a website's counts with their month charts.
 */
export type CardName = "article-change" | "stats"

/**
 * Marks an endpoint as an agent (MCP) tool. Everything else a tool has (its input and output schemas, validation,
 * errors, limits, the call log) follows from the endpoint it runs; these are only the words and hints an assistant
 * needs, written for an assistant rather than for an HTTP client.
 */
export interface AgentToolSpec {
  readonly name: string
  readonly title: string
  /** What the tool does and when an assistant should use it. */
  readonly description: string
  /** The tool changes nothing. */
  readonly readOnly: boolean
  /** Repeating a call with the same arguments has no further effect. */
  readonly idempotent: boolean
  /** Argument names for path parameters, e.g. `{ id: "article_id" }`, so the assistant knows which id it is. */
  readonly pathArgs?: Readonly<Record<string, string>>
  /** The card an app shows the result in, for hosts with the MCP Apps extension; the result is the same without. */
  readonly card?: CardName
}

/** A tool that runs one of several endpoints: this endpoint answers the calls that carry the argument `when`. */
export interface AgentToolVariant {
  readonly name: string
  readonly when: string
  readonly pathArgs?: Readonly<Record<string, string>>
}

export class AgentTool extends Context.Tag("Api/AgentTool")<AgentTool, AgentToolSpec | AgentToolVariant>() {}

export const isVariant = (spec: AgentToolSpec | AgentToolVariant): spec is AgentToolVariant => "when" in spec

/** A tool that only reads: it changes nothing, and asking again has no further effect. */
export const readTool = (spec: Omit<AgentToolSpec, "readOnly" | "idempotent">): AgentToolSpec => ({
  ...spec,
  readOnly: true,
  idempotent: true
})
