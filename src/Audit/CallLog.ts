import { HttpApi, type HttpApiGroup, HttpApiMiddleware, HttpApp, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Clock, Context, Effect, Layer, Option, Ref, Schema } from "effect"
import { AuditLog } from "../Audit.js"
import { CurrentCredential, ToolCaller } from "../Auth/CurrentCredential.js"
import { ArticleSubject } from "../Domain/Ids.js"
import { RequestId } from "../Http/RequestId.js"
import { pathOf } from "../Http/Server.js"
import type { AuditEntry } from "./Repo.js"

/**
 * The call being served, as the call log will record it. A change writes its row in its own transaction
 * (`entry(200)`, then `markRecorded`), so that a saved change is never missing from the log; every other call is
 * recorded when its response leaves (a read in the next batch of reads, see `AuditLog.recordRead`). A call answered
 * with a 5xx is recorded when it leaves even if it had marked its row: that transaction did not commit, or its
 * outcome is unknown.
 */
export class CurrentCall extends Context.Tag("Audit/CurrentCall")<
  CurrentCall,
  {
    readonly entry: (status: number) => Effect.Effect<AuditEntry>
    readonly markRecorded: Effect.Effect<void>
  }
>() {}

/** Records every authenticated API call and agent tool call (after `Authentication`). */
export class CallLog extends HttpApiMiddleware.Tag<CallLog>()("Audit/CallLog", { provides: CurrentCall }) {}

type Params = Readonly<Record<string, string | undefined>>

/** For each endpoint whose path names an article: how to read the article's id from the decoded path. */
const articleSubjects = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
) => {
  const subjects = new Map<string, (params: Params) => number | null>()
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => {
      if (Option.isNone(endpoint.pathSchema)) return
      const schema = endpoint.pathSchema.value as unknown as Schema.Schema<Record<string, unknown>, unknown>
      const field = schema.ast.annotations[ArticleSubject]
      if (typeof field !== "string") return
      const decode = Schema.decodeUnknownOption(schema)
      subjects.set(`${endpoint.method} ${endpoint.path}`, (params) =>
        Option.match(decode(params), {
          onNone: () => null,
          onSome: (path) => {
            const id = path[field]
            return typeof id === "number" ? id : Option.isOption(id) ? (Option.getOrNull(id) as number | null) : null
          }
        })
      )
    }
  })
  return subjects
}

export const CallLogLive = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
) =>
  Layer.effect(
    CallLog,
    Effect.gen(function* () {
      const audit = yield* AuditLog
      const subjects = articleSubjects(api)
      return Effect.gen(function* () {
        const started = yield* Clock.currentTimeMillis
        const requestId = yield* RequestId
        const credential = yield* Effect.serviceOption(CurrentCredential)
        if (Option.isNone(credential)) return yield* Effect.dieMessage("CallLog runs after Authentication")
        const tool = yield* Effect.serviceOption(ToolCaller)
        const request = yield* HttpServerRequest.HttpServerRequest
        const { route, params } = yield* HttpRouter.RouteContext
        const subject = subjects.get(`${route.method} ${route.path}`)
        const recorded = yield* Ref.make(false)
        const caller = credential.value
        const entry = (status: number) =>
          Effect.map(
            Clock.currentTimeMillis,
            (ended): AuditEntry => ({
              at: new Date(started).toISOString(),
              account_id: caller.accountId,
              api_key_id: caller.kind === "api_key" ? caller.id : null,
              user_id: caller.kind === "user" ? caller.id : null,
              origin: Option.isSome(tool) ? "MCP" : "API",
              method: Option.isSome(tool) ? null : request.method,
              path: Option.isSome(tool) ? null : pathOf(request.url),
              tool: Option.isSome(tool) ? tool.value.tool : null,
              article_id: subject === undefined ? null : subject(params),
              status,
              duration_ms: Math.max(0, Math.round(ended - started)),
              request_id: requestId === "" ? null : requestId
            })
          )
        // Handed over before the response leaves, so a call that was answered is never missing from the log: a
        // read (GET) joins the next batch of reads, anything else is written at once.
        const write = request.method === "GET" || request.method === "HEAD" ? audit.recordRead : audit.record
        yield* HttpApp.appendPreResponseHandler((_request, response) =>
          Effect.gen(function* () {
            if (response.status >= 500 || !(yield* Ref.get(recorded))) yield* write(yield* entry(response.status))
            return response
          })
        )
        return { entry, markRecorded: Ref.set(recorded, true) }
      })
    })
  )
