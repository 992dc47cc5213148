import { HttpApi, type HttpApiGroup, HttpApiSchema, HttpRouter, HttpServerRequest, Multipart } from "@effect/platform"
import { Effect, Layer, Option, Schema, Stream } from "effect"
import { RequestBody } from "../Api/Middleware.js"
import { MAX_IMAGE_BYTES } from "../Domain/ArticleEdits.js"
import { ValidationError } from "../Domain/Errors.js"
import { malformedJsonMessage } from "./ErrorMessages.js"
import { jsonDepthExceeds } from "./JsonDepth.js"

/** Largest JSON (or other non-multipart) request body of the API: a 200 KB article has ample room. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024
/** Largest multipart request body: a 10 MiB image and its fields. */
export const MAX_MULTIPART_BYTES = MAX_IMAGE_BYTES + 1024 * 1024
/** Largest request to /mcp: a 10 MiB image as base64 (about 13.4 MiB) and its JSON-RPC envelope. */
export const MAX_MCP_BODY_BYTES = 16 * 1024 * 1024

/** The media type of a Content-Type header, lower case, without parameters ("" when there is none). */
export const mediaTypeOf = (contentType: string | undefined) => (contentType ?? "").split(";")[0]!.trim().toLowerCase()

/** The body cap of a request, by route: answered 413 before anything is read. */
export const bodyCapOf = (path: string, contentType: string | undefined) =>
  path === "/mcp"
    ? MAX_MCP_BODY_BYTES
    : mediaTypeOf(contentType) === "multipart/form-data"
      ? MAX_MULTIPART_BYTES
      : MAX_BODY_BYTES

/** Deepest JSON nesting a request may have: deeper structures are refused before they are decoded. */
export const MAX_JSON_DEPTH = 64

/** 422 for JSON nested deeper than `MAX_JSON_DEPTH` (the decoder's error report would overflow the stack on it). */
export const refuseDeepJson = (text: string) =>
  jsonDepthExceeds(text, MAX_JSON_DEPTH)
    ? Effect.fail(
        new ValidationError({
          message: `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`,
          limit: MAX_JSON_DEPTH
        })
      )
    : Effect.void

/** The most parts a multipart body may have. */
export const MAX_MULTIPART_PARTS = 16

/** Headers that describe one hop's transfer, not the request; a request rebuilt from its bytes goes without them. */
export const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade"])

/**
 * `request` with `body` in place of its own (none when empty) and `headers` set over its end-to-end ones, its address
 * and remote address kept: what a step that reads the body hands on to the endpoint.
 */
export const rebuiltRequest = (
  request: HttpServerRequest.HttpServerRequest,
  body: Uint8Array<ArrayBuffer> | string,
  set: Readonly<Record<string, string>>
) => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && !hopByHop.has(name)) headers.set(name, value)
  }
  for (const [name, value] of Object.entries(set)) headers.set(name, value)
  const rebuilt = HttpServerRequest.fromWeb(
    new Request(`http://in-process${request.url}`, {
      method: request.method,
      headers,
      ...(body.length === 0 ? {} : { body })
    })
  )
  return rebuilt.modify({
    url: request.url,
    ...Option.match(request.remoteAddress, { onNone: () => ({}), onSome: (remoteAddress) => ({ remoteAddress }) })
  })
}

/**
 * Whether a file part of the body has no file name but some content. The endpoint's reader skips such a part
 * without reading it, so one larger than the parser's buffer would stall the body until the request times out.
 * Read with the same parser and limits; a body it cannot read is left for the endpoint to refuse as usual.
 */
const hasNamelessFile = (request: HttpServerRequest.HttpServerRequest) =>
  request.multipartStream.pipe(
    Stream.mapEffect((part) =>
      Multipart.isFile(part)
        ? Stream.runFold(part.content, 0, (size, chunk) => size + chunk.length).pipe(
            Effect.map((size) => part.name === "" && size > 0)
          )
        : Effect.succeed(false)
    ),
    Stream.runFold(false, (found, nameless) => found || nameless),
    Effect.orElseSucceed(() => false)
  )

/**
 * A multipart body is read whole (within the body cap) and must hold at least one part and its closing boundary:
 * the parser would otherwise wait for the rest of an empty or cut-off body until the request times out. The
 * endpoint then reads the body from those bytes.
 */
const completeMultipart = (request: HttpServerRequest.HttpServerRequest, boundary: string) =>
  Effect.gen(function* () {
    const bytes = Buffer.from(yield* request.arrayBuffer.pipe(Effect.orDie))
    if (!bytes.includes(`--${boundary}\r\n`) || !bytes.includes(`--${boundary}--`)) {
      return yield* new ValidationError({ message: "The multipart body is empty or ends before its closing boundary." })
    }
    // No form here has more than a few fields; thousands of tiny parts would be parsed (and written) one by one.
    let parts = 0
    for (let at = bytes.indexOf(`--${boundary}\r\n`); at !== -1; at = bytes.indexOf(`--${boundary}\r\n`, at + 1)) {
      if (++parts > MAX_MULTIPART_PARTS) {
        return yield* new ValidationError({
          message: `A multipart body may have at most ${MAX_MULTIPART_PARTS} parts.`,
          limit: MAX_MULTIPART_PARTS
        })
      }
    }
    // The boundary as read here, written plainly: the parser refuses forms it does not read (a trailing ";", a tab).
    const body = new Uint8Array(bytes)
    const rebuilt = () =>
      rebuiltRequest(request, body, { "content-type": `multipart/form-data; boundary="${boundary}"` })
    // An empty nameless file is what a browser sends for a file input left empty: the endpoint treats it as absent.
    if (yield* hasNamelessFile(rebuilt())) {
      return yield* new ValidationError({ message: "A file part of the multipart body has no file name (filename)." })
    }
    return rebuilt()
  })

/** What an endpoint's body may be: its content types, and whether no body at all means `{}` (every field optional). */
interface Accepted {
  readonly types: ReadonlyArray<string>
  readonly mayBeAbsent: boolean
}

const accepted = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
) => {
  const types = new Map<string, Accepted>()
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => {
      if (Option.isNone(endpoint.payloadSchema)) return
      const ast = endpoint.payloadSchema.value.ast
      const members = ast._tag === "Union" ? ast.types : [ast]
      const multipart = members.some((member) => HttpApiSchema.getMultipart(member) !== undefined)
      const json = members.some((member) => HttpApiSchema.getMultipart(member) === undefined)
      types.set(`${endpoint.method} ${endpoint.path}`, {
        types: [...(json ? ["application/json"] : []), ...(multipart ? ["multipart/form-data"] : [])],
        mayBeAbsent: !multipart && Option.isSome(Schema.decodeUnknownOption(endpoint.payloadSchema.value)({}))
      })
    }
  })
  return types
}

export const RequestBodyLive = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
) => {
  const types = accepted(api)
  return Layer.succeed(
    RequestBody,
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { route } = yield* HttpRouter.RouteContext
      const endpoint = types.get(`${route.method} ${route.path}`)
      if (endpoint === undefined) return request
      const takes = endpoint.types
      const contentType = request.headers["content-type"]
      const sent = mediaTypeOf(contentType)
      // A request with no body at all (no Content-Type, no length, not chunked), where every field is optional
      // (a restore's reason): read as the empty object, as `curl -X POST` is meant.
      if (
        endpoint.mayBeAbsent &&
        sent === "" &&
        (request.headers["content-length"] ?? "0") === "0" &&
        request.headers["transfer-encoding"] === undefined
      ) {
        return rebuiltRequest(request, "{}", { "content-type": "application/json" })
      }
      if (!takes.includes(sent)) {
        return yield* new ValidationError({
          message: `${sent === "" ? "The request has no Content-Type" : `Content-Type ${sent} is not accepted`}: this endpoint takes ${takes.join(" or ")}.`
        })
      }
      if (sent === "multipart/form-data") {
        const boundary = /;\s*boundary="?([^";]+)"?/i.exec(contentType ?? "")?.[1]
        // RFC 2046: 1 to 70 of a small set of characters, not ending in a space.
        if (boundary === undefined || !/^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/.test(boundary)) {
          return yield* new ValidationError({ message: "A multipart/form-data body needs a valid boundary parameter." })
        }
        return yield* completeMultipart(request, boundary)
      }
      const text = yield* request.text.pipe(Effect.orDie)
      // The platform reads an empty body as null, which the payload's schema would refuse in its own words.
      if (text.trim() === "") return yield* new ValidationError({ message: malformedJsonMessage(text) })
      yield* refuseDeepJson(text)
      return request
    })
  )
}
