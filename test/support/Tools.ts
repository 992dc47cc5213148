import { Api } from "../../src/Api.js"
import { deriveTools, type Tool } from "../../src/Mcp/Tools.js"

/**
 * The service's tools as its endpoints derive them: what every `tools/list` must show. Tests compare a listed tool
 * with these (names, hints, argument names), never with a list of their own, so a new endpoint's tool needs no
 * change to them.
 */
export const serviceTools: ReadonlyArray<Tool> = deriveTools(Api)

/** Every tool's name, sorted. */
export const toolNames = serviceTools.map((tool) => tool.name).sort()

/** The tools that change nothing, and those that change articles (they need scope content:write). */
export const readToolNames = serviceTools.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name)
export const writeToolNames = serviceTools.filter((tool) => !tool.annotations.readOnlyHint).map((tool) => tool.name)

/** A derived tool by name. */
export const serviceTool = (name: string): Tool => {
  const tool = serviceTools.find((candidate) => candidate.name === name)
  if (tool === undefined) throw new Error(`no tool ${name}`)
  return tool
}

/** What a `tools/list` entry may cost an assistant's context, in characters (CONTRACT: per tool, not per list). */
export const TOOL_ENTRY_BUDGET = 4_000
