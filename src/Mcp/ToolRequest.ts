import { Either } from "effect"
import { ValidationError } from "../Domain/Errors.js"
import { schemasAt, type Tool, type ToolRoute } from "./Tools.js"

type Args = Readonly<Record<string, unknown>>

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/

const textOf = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

/** The route that answers a call: the one whose `when` argument is present, else the one without `when`. */
const routeFor = (tool: Tool, args: Args): ToolRoute | undefined =>
  tool.routes.find((route) => route.when !== undefined && args[route.when] !== undefined) ??
  tool.routes.find((route) => route.when === undefined)

/** A file argument's bytes, base64-encoded (as the tool's schema says) with any white space taken out. */
const base64Of = (value: unknown): string | undefined => {
  const text = typeof value === "string" ? value.replace(/\s+/g, "") : undefined
  return text !== undefined && text.length % 4 === 0 && base64Pattern.test(text) ? text : undefined
}

/**
 * A tool call made into the parts of its endpoint's request, every argument checked to fit where it goes. Building
 * the request itself (its body encoded, its files decoded) is left to `toolRequest`, so that a POST can be judged
 * call by call (does each make a request?) without building each request twice.
 */
export interface ToolCallPlan {
  readonly route: ToolRoute
  readonly url: string
  /** The header arguments, and the body's content type when it is JSON. */
  readonly headers: Headers
  /** The body: none, a JSON object, or a multipart form when a file is sent. */
  readonly body: "none" | "json" | "multipart"
  /** The body's arguments: what is neither in the path, the query nor a header; a file as its base64 text. */
  readonly fields: ReadonlyArray<readonly [string, unknown]>
}

/**
 * What a tool call asks of its endpoint: path arguments fill the path, query and header arguments their places, and
 * the rest is the body (JSON, or multipart when a file argument is sent), so that the endpoint's own decoding judges
 * them, unknown ones included. An optional argument given as null is left out, as if not given. Only what cannot be
 * put into a request at all is refused here.
 */
export const planToolRequest = (tool: Tool, given: Args): Either.Either<ToolCallPlan, ValidationError> =>
  Either.gen(function* () {
    // An optional argument given as null is one not given (strict-mode models send null for every unused one).
    const args = Object.fromEntries(
      Object.entries(given).filter(([name, value]) => value !== null || !tool.absentWhenNull.includes(name))
    )
    const known = Object.keys(schemasAt(tool.inputSchema, "properties"))
    const unknown = Object.keys(args).find((name) => !known.includes(name))
    if (unknown !== undefined) {
      return yield* Either.left(
        new ValidationError({ message: `${unknown}: is unexpected; ${tool.name} takes ${known.join(", ")}` })
      )
    }
    const route = routeFor(tool, args)
    if (route === undefined)
      return yield* Either.left(new ValidationError({ message: "No endpoint for these arguments" }))
    let path = route.path
    for (const { param, arg } of route.pathArgs) {
      const value = args[arg]
      if (value === undefined) return yield* Either.left(new ValidationError({ message: `${arg}: is missing` }))
      // Path parameters are ids: the tool's schema says positive integer, and a call is held to it.
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
        return yield* Either.left(new ValidationError({ message: `${arg}: must be a positive integer` }))
      }
      path = path.replace(`:${param}`, encodeURIComponent(String(value)))
    }
    const query = new URLSearchParams()
    for (const arg of route.queryArgs) if (args[arg] !== undefined) query.set(arg, textOf(args[arg]))
    const headers = new Headers()
    for (const { header, arg } of route.headerArgs) {
      if (args[arg] === undefined) continue
      // A header carries bytes: text beyond U+00FF, line breaks or NUL cannot be sent in one, by HTTP or from here.
      yield* Either.try({
        try: () => headers.set(header, textOf(args[arg])),
        catch: () =>
          new ValidationError({
            message: `${arg}: must be text that fits in an HTTP header (no line breaks, NUL or characters beyond U+00FF)`
          })
      })
    }
    const taken = new Set([
      ...route.pathArgs.map((p) => p.arg),
      ...route.queryArgs,
      ...route.headerArgs.map((h) => h.arg)
    ])
    const sent = Object.entries(args).filter(([name, value]) => !taken.has(name) && value !== undefined)
    const search = query.size === 0 ? "" : `?${query.toString()}`
    const url = `http://in-process${path}${search}`
    if (!route.hasPayload) {
      const extra = sent[0]
      if (extra !== undefined) return yield* Either.left(new ValidationError({ message: `${extra[0]}: is unexpected` }))
      return { route, url, headers, body: "none", fields: [] }
    }
    const fields: Array<readonly [string, unknown]> = []
    for (const [name, value] of sent) {
      if (!route.fileArgs.includes(name)) fields.push([name, value])
      else {
        const base64 = base64Of(value)
        if (base64 === undefined) {
          return yield* Either.left(
            new ValidationError({ message: `${name}: must be the file's bytes, base64-encoded` })
          )
        }
        fields.push([name, base64])
      }
    }
    if (fields.some(([name]) => route.fileArgs.includes(name)))
      return { route, url, headers, body: "multipart", fields }
    headers.set("content-type", "application/json")
    return { route, url, headers, body: "json", fields }
  })

/** The request a tool call makes to its endpoint, answered in process by the same pipeline as an HTTP request. */
export const toolRequest = ({ route, url, headers, body, fields }: ToolCallPlan): Request => {
  if (body === "none") return new Request(url, { method: route.method, headers })
  if (body === "json") {
    return new Request(url, { method: route.method, headers, body: JSON.stringify(Object.fromEntries(fields)) })
  }
  const form = new FormData()
  for (const [name, value] of fields) {
    if (route.fileArgs.includes(name)) form.append(name, new Blob([Buffer.from(textOf(value), "base64")]), name)
    else form.append(name, textOf(value))
  }
  return new Request(url, { method: route.method, headers, body: form })
}
