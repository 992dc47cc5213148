import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { TestApp } from "./TestServer.js"

export interface RequestOptions {
  /** An API key, sent as X-API-Key. */
  readonly key?: string | undefined
  /** A credential sent as `Authorization: Bearer …`. */
  readonly bearer?: string | undefined
  /** A body sent as JSON, with its content type. */
  readonly json?: unknown
  /** A body sent exactly as given (its content type, if any, in `headers`). */
  readonly body?: BodyInit | undefined
  /** More headers; they win over the ones the options above set. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  /** The answer parsed as JSON, or its text where it is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: an answer's JSON is read by the assertions, field by field
  readonly body: any
  readonly text: string
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** A request to the test server (`path` starts with `/`); its status, headers, text and parsed body. */
export const request = (method: string, path: string, options: RequestOptions = {}) =>
  Effect.gen(function* () {
    const app = yield* TestApp
    const headers: Record<string, string> = {}
    if (options.key !== undefined) headers["x-api-key"] = options.key
    if (options.bearer !== undefined) headers["authorization"] = `Bearer ${options.bearer}`
    if (options.json !== undefined) headers["content-type"] = "application/json"
    const body = options.json !== undefined ? JSON.stringify(options.json) : options.body
    const res = yield* app.fetch(path, {
      method,
      headers: { ...headers, ...options.headers },
      ...(body === undefined ? {} : { body })
    })
    const text = yield* Effect.promise(() => res.text())
    const answer: Answer = { status: res.status, headers: res.headers, body: parsed(text), text }
    return answer
  })

/** A PUT of one article with an API key and a JSON body. */
export const putArticle = (id: number, key: string, json: unknown) =>
  request("PUT", `/api/v1/articles/${id}`, { key, json })

/** A PATCH of one article with an API key and a JSON body. */
export const patchArticle = (id: number, key: string, json: unknown) =>
  request("PATCH", `/api/v1/articles/${id}`, { key, json })

/** One article as GET answers it with an API key (which must be 200): its `data`. */
export const articleData = (id: number, key: string) =>
  request("GET", `/api/v1/articles/${id}`, { key }).pipe(
    Effect.tap((res) => assert.strictEqual(res.status, 200, res.text)),
    Effect.map((res) => res.body.data)
  )
