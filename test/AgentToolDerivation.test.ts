// @tags: unit
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { AgentTool } from "../src/Api/AgentTool.js"
import { Api } from "../src/Api.js"
import { strictBody } from "../src/Domain/ArticleEdits.js"
import type { Credential } from "../src/Domain/Credential.js"
import { AccountId, PathId } from "../src/Domain/Ids.js"
import { ApplicationApp } from "../src/Mcp/InProcess.js"
import { answerTool, type ToolDoor } from "../src/Mcp/ToolCalls.js"
import { deriveTools } from "../src/Mcp/Tools.js"

const NoteId = Schema.Number.pipe(Schema.int(), Schema.positive(), Schema.brand("NoteId"))

/** An API that exists only in this test: one endpoint annotated as a tool, one not. */
class ProbeGroup extends HttpApiGroup.make("probe")
  .add(
    HttpApiEndpoint.post("annotate", "/notes/:id")
      .setPath(Schema.Struct({ id: PathId(NoteId, "note", "Note id.") }))
      .setUrlParams(Schema.Struct({ loud: Schema.optional(Schema.Literal("yes", "no")) }))
      .setPayload(strictBody(Schema.Struct({ text: Schema.String.annotations({ description: "The note." }) })))
      .addSuccess(Schema.Struct({ data: Schema.Struct({ id: Schema.Number, text: Schema.String }) }))
      .annotate(AgentTool, {
        name: "annotate_note",
        title: "Annotate a note",
        description: "Writes a note.",
        readOnly: false,
        idempotent: true,
        pathArgs: { id: "note_id" }
      })
  )
  .add(HttpApiEndpoint.get("hidden", "/hidden").addSuccess(Schema.String)) {}

class ProbeApi extends HttpApi.make("probe").add(ProbeGroup).prefix("/api/v1") {}

const ProbeHandlers = HttpApiBuilder.group(ProbeApi, "probe", (handlers) =>
  handlers
    .handle("annotate", ({ path, urlParams, payload }) =>
      Effect.succeed({
        data: {
          id: path.id,
          text: urlParams.loud === "yes" ? payload.text.toUpperCase() : payload.text
        }
      })
    )
    .handle("hidden", () => Effect.succeed("hidden"))
)

/** The probe API as an application answering in process, like the service's own. */
const ProbeAppLive = Layer.effect(ApplicationApp, HttpApiBuilder.httpApp).pipe(
  Layer.provide(HttpApiBuilder.api(ProbeApi).pipe(Layer.provide(ProbeHandlers))),
  Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
  Layer.provideMerge(NodeHttpServer.layerContext)
)

const user: Credential = { kind: "user", id: 1, accountId: AccountId.make(1), isAdmin: false, canWrite: true }

/** The door of the probe's tool calls (the probe API has no middleware that asks it anything). */
const door: ToolDoor = {
  authenticate: Effect.succeed({
    credential: user,
    origin: "MCP",
    requests: { limit: 60, remaining: 59, reset: 60, exceeded: false, editsRemaining: 200, editsReset: 3600 }
  }),
  callName: () => ({ method: null, path: null, tool: "annotate_note" })
}

describe("agent tools are derived from annotated endpoints", () => {
  it("an endpoint annotated in a test-only API becomes a tool with its path, query and payload parameters", () => {
    const tools = deriveTools(ProbeApi)
    assert.deepStrictEqual(
      tools.map((tool) => tool.name),
      ["annotate_note"]
    )
    const tool = tools[0]!
    assert.deepStrictEqual(tool.inputSchema["required"], ["note_id", "text"])
    assert.sameMembers(Object.keys(tool.inputSchema["properties"] as object), ["note_id", "loud", "text"])
    assert.deepStrictEqual(tool.annotations, {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    })
    assert.property(tool.outputSchema["properties"] as object, "data")
  })

  it.effect("and is callable through that API's own pipeline, with no other change", () =>
    Effect.gen(function* () {
      const tool = deriveTools(ProbeApi)[0]!
      const ok = yield* answerTool(door, tool, { note_id: 7, loud: "yes", text: "hello" })
      assert.deepStrictEqual(ok.outcome, {
        _tag: "Ok",
        data: { data: { id: 7, text: "HELLO" } },
        text: JSON.stringify({ data: { id: 7, text: "HELLO" } })
      })
      const refused = yield* answerTool(door, tool, { note_id: 7, text: "hello", extra: true })
      assert.strictEqual(refused.outcome._tag, "Error")
      // The probe API has no error middleware of its own: its decode failure is the framework's 400, as over HTTP.
      const typo = yield* answerTool(door, tool, { note_id: 7, loud: "maybe", text: "hello" })
      assert.deepInclude(typo.outcome, { _tag: "Error", status: 400 })
    }).pipe(Effect.provide(ProbeAppLive))
  )

  it.effect("an optional argument given as null is left out of the request; a required one given as null is not", () =>
    Effect.gen(function* () {
      const tool = deriveTools(ProbeApi)[0]!
      assert.deepStrictEqual(tool.absentWhenNull, ["loud"])
      assert.deepStrictEqual((tool.inputSchema["properties"] as Record<string, unknown>)["loud"], {
        anyOf: [{ type: "string", enum: ["yes", "no"] }, { type: "null" }]
      })
      const quiet = yield* answerTool(door, tool, { note_id: 7, loud: null, text: "hello" })
      assert.deepInclude(quiet.outcome, { _tag: "Ok", data: { data: { id: 7, text: "hello" } } })
      const noText = yield* answerTool(door, tool, { note_id: 7, text: null })
      assert.deepInclude(noText.outcome, { _tag: "Error", status: 400 })
    }).pipe(Effect.provide(ProbeAppLive))
  )

  it("the service's tools are exactly its annotated endpoints, one per name", () => {
    const annotated = new Set<string>()
    HttpApi.reflect(Api, {
      onGroup: () => undefined,
      onEndpoint: ({ mergedAnnotations }) => {
        const spec = Context.getOption(mergedAnnotations, AgentTool)
        if (Option.isSome(spec)) annotated.add(spec.value.name)
      }
    })
    const names = deriveTools(Api).map((tool) => tool.name)
    assert.isAbove(names.length, 0)
    assert.strictEqual(new Set(names).size, names.length)
    assert.sameMembers(names, [...annotated])
  })

  it("tool names appear in src/ only in the endpoints' annotations (the declarations: src/Api/ and each feature's Api.ts)", () => {
    const names = deriveTools(Api).map((tool) => tool.name)
    const files: Array<string> = []
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry)
        if (statSync(path).isDirectory()) walk(path)
        else if (path.endsWith(".ts")) files.push(path)
      }
    }
    walk(new URL("../src", import.meta.url).pathname)
    const outside = files.flatMap((file) =>
      /\/src\/(Api\/|[A-Za-z]+\/Api\.ts$)/.test(file)
        ? []
        : names
            .filter((name) => new RegExp(`\\b${name}\\b`).test(readFileSync(file, "utf8")))
            .map((name) => `${file}: ${name}`)
    )
    assert.deepStrictEqual(outside, [])
  })
})
