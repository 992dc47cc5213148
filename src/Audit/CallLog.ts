import {
  HttpApi,
  type HttpApiGroup,
  HttpApp,
  HttpRouter,
  HttpServerRequest,
  type HttpServerResponse
} from "@effect/platform"
import { Clock, Effect, Layer, Option, Ref, Schema } from "effect"
import { CallLog, CurrentCaller, Door } from "../Api/Middleware.js"
import { type AuditEntry, type CallNote, callFailure } from "../Domain/CallLog.js"
import { ArticleSubject } from "../Domain/Ids.js"
import { RequestId } from "../Http/RequestId.js"
import { AuditLog } from "./AuditLog.js"

type Params = Readonly<Record<string, string | undefined>>

const NO_FAILURE = { error: null, message: null } as const

/** What a failed answer's `Error` body says (every failure is answered with one, as JSON); nothing for a success. */
const failureOf = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.status < 400 || response.body._tag !== "Uint8Array") return NO_FAILURE
  try {
    return callFailure(JSON.parse(new TextDecoder().decode(response.body.body)))
  } catch {
    return NO_FAILURE
  }
}

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
            return typeof id === "number" ? id : null
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
        const current = yield* Effect.serviceOption(CurrentCaller)
        if (Option.isNone(current)) return yield* Effect.dieMessage("CallLog runs after Authentication")
        const { credential: caller, origin } = current.value
        const request = yield* HttpServerRequest.HttpServerRequest
        const name = (yield* Door).callName(request)
        const { route, params } = yield* HttpRouter.RouteContext
        const subject = subjects.get(`${route.method} ${route.path}`)
        const recorded = yield* Ref.make(false)
        const noted = yield* Ref.make<CallNote | null>(null)
        const entry = (
          status: number,
          saved?: { readonly revision: number },
          note: CallNote | null = null,
          failure: ReturnType<typeof failureOf> = NO_FAILURE
        ) =>
          Effect.map(
            Clock.currentTimeMillis,
            (ended): AuditEntry => ({
              at: new Date(started).toISOString(),
              account_id: caller.accountId,
              api_key_id: caller.kind === "api_key" ? caller.id : null,
              user_id: caller.kind === "user" ? caller.id : null,
              origin,
              method: name.method,
              path: name.path,
              tool: name.tool,
              article_id: subject === undefined ? null : subject(params),
              status,
              duration_ms: Math.max(0, Math.round(ended - started)),
              request_id: requestId === "" ? null : requestId,
              revision: saved?.revision ?? null,
              note,
              ...failure
            })
          )
        // Handed over before the response leaves, so a call that was answered is never missing from the log: a
        // read (GET) joins the next batch of reads, anything else is written at once.
        const write = request.method === "GET" || request.method === "HEAD" ? audit.recordRead : audit.record
        yield* HttpApp.appendPreResponseHandler((_request, response) =>
          Effect.gen(function* () {
            if (response.status >= 500 || !(yield* Ref.get(recorded))) {
              // What the call noted it was counts only for an answer that succeeded.
              const note = response.status < 300 ? yield* Ref.get(noted) : null
              yield* write(yield* entry(response.status, undefined, note, failureOf(response)))
            }
            return response
          })
        )
        return { entry, markRecorded: Ref.set(recorded, true), note: (note: CallNote) => Ref.set(noted, note) }
      })
    })
  )
