import fc from "fast-check"
import { hostileString, rarely, shortHostileString } from "./Hostile.js"

// Multipart request bodies for the fuzz tests: well-formed, or broken in the ways clients break them.

/** A multipart part: its field name, optional file name and type, and content. */
interface MultipartPart {
  readonly name: string | undefined
  readonly filename: string | undefined
  readonly type: string | undefined
  readonly content: Uint8Array
}

/** The first bytes of a 1×1 PNG, a JPEG and a GIF (image detection reads these), and some that are not images. */
const imageLike = [
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64"
  ),
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0]),
  Buffer.from("GIF89a\u0001\u0000\u0001\u0000", "latin1"),
  Buffer.from("RIFF\u0000\u0000\u0000\u0000WEBPVP8 ", "latin1"),
  Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"),
  Buffer.alloc(0)
]

const multipartPart = (fieldNames: ReadonlyArray<string>): fc.Arbitrary<MultipartPart> =>
  fc.record({
    name: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...fieldNames) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: shortHostileString }
    ),
    filename: rarely(2, fc.oneof(fc.constant("image.png"), shortHostileString)),
    type: rarely(2, fc.constantFrom("image/png", "text/plain; charset=utf-16", "application/octet-stream", "x")),
    content: fc.oneof(
      fc.constantFrom(...imageLike),
      hostileString.map((text) => Buffer.from(text, "utf8")),
      fc.uint8Array({ maxLength: 64 })
    )
  })

/** A multipart body of `parts` with `boundary`, closed or not. */
const multipartBody = (parts: ReadonlyArray<MultipartPart>, boundary: string, closed: boolean): Buffer =>
  Buffer.concat([
    ...parts.flatMap((part) => {
      const disposition = [
        "form-data",
        ...(part.name === undefined ? [] : [`name="${part.name.replace(/["\r\n]/g, "_")}"`]),
        ...(part.filename === undefined ? [] : [`filename="${part.filename.replace(/["\r\n]/g, "_")}"`])
      ].join("; ")
      const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${
        part.type === undefined ? "" : `Content-Type: ${part.type}\r\n`
      }\r\n`
      return [Buffer.from(head, "utf8"), Buffer.from(part.content), Buffer.from("\r\n")]
    }),
    Buffer.from(closed ? `--${boundary}--\r\n` : "")
  ])

/** A multipart request body: its content type and bytes, well-formed or broken in the ways clients break them. */
export const multipartRequest = (
  fieldNames: ReadonlyArray<string>
): fc.Arbitrary<{ readonly contentType: string; readonly body: Uint8Array }> =>
  fc
    .record({
      boundary: fc.oneof(
        fc.constant("----fuzzBoundary7MA4YWxk"),
        fc.stringMatching(/^[0-9A-Za-z'()+_,\-./:=?]{1,70}$/),
        fc.constant('"quoted boundary"')
      ),
      parts: fc.array(multipartPart(fieldNames), { maxLength: 4 }),
      shape: fc.oneof(
        { weight: 12, arbitrary: fc.constantFrom("closed", "closed", "closed", "unclosed", "cut", "other-boundary") },
        { weight: 2, arbitrary: fc.constantFrom("empty", "preamble") },
        { weight: 1, arbitrary: fc.constant("many") }
      ),
      cut: fc.nat()
    })
    .map(({ boundary, parts, shape, cut }) => {
      const bare = boundary.replace(/^"|"$/g, "")
      const contentType = `multipart/form-data; boundary=${boundary}`
      const closedBody = multipartBody(parts, bare, true)
      switch (shape) {
        case "unclosed":
          return { contentType, body: multipartBody(parts, bare, false) }
        case "cut":
          return { contentType, body: closedBody.subarray(0, cut % (closedBody.length + 1)) }
        case "other-boundary":
          return { contentType, body: multipartBody(parts, `${bare}x`, true) }
        case "empty":
          return { contentType, body: new Uint8Array(0) }
        case "preamble":
          return { contentType, body: Buffer.concat([Buffer.from("preamble text\r\n"), closedBody]) }
        case "many": {
          // Tens of thousands of tiny file parts: well within the body cap.
          const part = { name: fieldNames[0], filename: "a.png", type: undefined, content: Buffer.from("a") }
          return {
            contentType,
            body: multipartBody(
              Array.from({ length: 40_000 }, () => part),
              bare,
              true
            )
          }
        }
        default:
          return { contentType, body: closedBody }
      }
    })
