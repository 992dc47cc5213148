import fc from "fast-check"
import { hostileString, rarely, shortHostileString, usually } from "./Hostile.js"
import { deepJson, hostileJson, malformedJson, notUtf8Json, toJsonText } from "./HostileJson.js"
import { isSchema } from "./SchemaValues.js"

// The parts of an HTTP request for the fuzz tests: path segments, query strings, forms, headers, content types, JSON
// bodies and how a body goes on the wire.

/** Percent-encodes `text` as UTF-8 (a lone surrogate becomes U+FFFD, as a browser would send it). */
const percentEncode = (text: string): string =>
  [...Buffer.from(text, "utf8")]
    .map((byte) =>
      (byte >= 0x30 && byte <= 0x39) ||
      (byte >= 0x41 && byte <= 0x5a) ||
      (byte >= 0x61 && byte <= 0x7a) ||
      [0x2d, 0x2e, 0x5f, 0x7e].includes(byte)
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
    )
    .join("")

/** A header value node:http sends as it is: tab, visible ASCII and Latin-1; anything else percent-encoded. */
export const asHeaderValue = (text: string): string =>
  [...text]
    .map((char) => (/^[\t\u0020-\u007e\u0080-\u00ff]$/.test(char) ? char : percentEncode(char)))
    .join("")
    .trim()

/** Ids for a path segment: the fixtures' own and foreign ids, and what the contract says is a 404, never a 500. */
export const idSegment = (valid: ReadonlyArray<number>, foreign: ReadonlyArray<number>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...valid).map(String) },
    { weight: 2, arbitrary: fc.constantFrom(...foreign).map(String) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "0",
        "-1",
        "1e3",
        "%D9%A1%D9%A3",
        "13;x",
        "00001",
        "+1",
        "1.0",
        "0x10",
        "2147483648",
        "9007199254740993",
        "99999999999999999999999999",
        "-0",
        "abc",
        "%00",
        "%ED%A0%80",
        "%ZZ",
        "%",
        "%F0%9F%98%80",
        "%2e%2e",
        "%2F",
        "caf\u00e9",
        "1%20",
        "%31"
      )
    },
    { weight: 1, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: shortHostileString.map(percentEncode) }
  )

/** Query values as sent: mostly `shaped` percent-encoded, sometimes hostile text, or raw text with broken escapes. */
export const queryValue = (shaped: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: shaped.map(percentEncode) },
    { weight: 1, arbitrary: hostileString.map((text) => percentEncode(text.slice(0, 3000))) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("%ZZ", "%", "%E2%82", "%ED%A0%80", "%C0%80", "%00", "+", "a=b", "caf\u00e9", "%FF")
    }
  )

/**
 * A query string (or form body, without its `?`) of `params`: each present one time in `absentOneIn` - 1 of
 * `absentOneIn`, rarely twice, with an unknown parameter or junk added now and then.
 */
export const queryString = (
  params: ReadonlyArray<readonly [string, fc.Arbitrary<string>]>,
  absentOneIn = 2
): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.tuple(
        ...params.map(([name, value]) =>
          usually(
            absentOneIn,
            fc
              .tuple(value, rarely(10, value))
              .map(([first, second]) =>
                second === undefined ? [`${name}=${first}`] : [`${name}=${first}`, `${name}=${second}`]
              )
          )
        )
      ),
      rarely(6, fc.constantFrom("unknown=1", "&&", "=", "a", "page[]=1", "%ZZ=1", "__proto__=x", "a=%00"))
    )
    .map(([pairs, junk]) => {
      const all = pairs.flatMap((pair) => pair ?? [])
      if (junk !== undefined) all.push(junk)
      return all.length === 0 ? "" : `?${all.join("&")}`
    })

/** A form field: its name, a value that is right, and other values it may be sent with. */
export type FormField = readonly [name: string, valid: string, other: fc.Arbitrary<string>]

/**
 * A form body (or query string, without its `?`) that is right but for one or two fields: each is changed, left out
 * or sent twice one time in `changeOneIn`.
 */
export const nearlyValidForm = (fields: ReadonlyArray<FormField>, changeOneIn = 12): fc.Arbitrary<string> =>
  fc
    .tuple(
      ...fields.map(([name, valid, other]) =>
        fc.oneof(
          { weight: (changeOneIn - 1) * 3, arbitrary: fc.constant([`${name}=${percentEncode(valid)}`]) },
          { weight: 1, arbitrary: other.map((value) => [`${name}=${percentEncode(value)}`]) },
          { weight: 1, arbitrary: fc.constant<Array<string>>([]) },
          {
            weight: 1,
            arbitrary: other.map((value) => [`${name}=${percentEncode(valid)}`, `${name}=${percentEncode(value)}`])
          }
        )
      )
    )
    .map((parts) => parts.flat().join("&"))

/** Content types an endpoint may be sent, right, odd or wrong; `undefined` sends none. */
export const contentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined,
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json;charset=latin1",
  "application/json; charset=utf-16",
  'application/json; charset="utf-8"',
  "application/json; charset=bogus-123",
  "application/json;",
  "application/jsonp",
  "application/merge-patch+json",
  "text/json",
  "text/plain",
  "text/html",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  'multipart/form-data; boundary=""',
  "multipart/form-data; boundary=x",
  "multipart/mixed; boundary=x",
  "application/octet-stream",
  "*/*",
  "",
  "application/json, text/plain",
  ";",
  "caf\u00e9/json"
)

/** How a body goes on the wire: mostly with its length, sometimes chunked or cut short. */
export const framing = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ _tag: "length" as const }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(1, 7, 4096).map((chunkSize) => ({ _tag: "chunked" as const, chunkSize }))
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1, 100, 10_000).map((missing) => ({ _tag: "truncated" as const, missing }))
  }
)

/** Headers with the absent (`undefined`) ones left out. */
export const headersOf = (entries: ReadonlyArray<readonly [string, string | undefined]>): Record<string, string> =>
  Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined))

/** One of `values` (mostly), or anything `also` gives. */
export const pick = <A>(values: ReadonlyArray<A>, also: fc.Arbitrary<A>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...values) }, also)

/** A form body or query string of `fields` (mostly present, rarely twice), with junk now and then. */
export const formText = (fields: ReadonlyArray<readonly [string, fc.Arbitrary<string>]>) =>
  queryString(
    fields.map(([name, value]) => [name, queryValue(value)] as const),
    6
  ).map((query) => query.slice(1))

/** Mostly a form, sometimes another content type. */
export const formType = fc.oneof(
  { weight: 8, arbitrary: fc.constant<string | undefined>("application/x-www-form-urlencoded") },
  fc.constantFrom<string | undefined>(
    "application/x-www-form-urlencoded; charset=utf-16",
    "APPLICATION/X-WWW-FORM-URLENCODED"
  ),
  contentType
)

/** A form of `fields`: nearly right (one or two fields changed) or anything. */
export const form = (fields: ReadonlyArray<FormField>) =>
  fc.oneof(
    { weight: 3, arbitrary: nearlyValidForm(fields) },
    { weight: 1, arbitrary: formText(fields.map(([name, valid, other]) => [name, pick([valid], other)] as const)) }
  )

/** The body of a JSON endpoint: its schema's values, any JSON, malformed text, deep nesting, bytes not UTF-8. */
export const jsonBody = (
  schema: fc.Arbitrary<unknown>,
  fields: ReadonlyArray<string>
): fc.Arbitrary<{ readonly contentType: string | undefined; readonly body: string | Uint8Array }> => {
  const field = fields.length === 0 ? fc.constant("a") : fc.constantFrom(...fields)
  const text: fc.Arbitrary<string | Uint8Array> = fc.oneof(
    { weight: 8, arbitrary: schema.map(toJsonText) },
    { weight: 1, arbitrary: hostileJson.map(toJsonText) },
    { weight: 1, arbitrary: malformedJson },
    {
      weight: 1,
      arbitrary: fc
        .tuple(schema, deepJson, field)
        .map(([value, deep, name]) => toJsonText({ ...(isSchema(value) ? value : {}), [name]: deep }))
    },
    { weight: 1, arbitrary: field.chain(notUtf8Json) }
  )
  const type = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom<string | undefined>("application/json", "application/json; charset=utf-8")
    },
    { weight: 1, arbitrary: contentType }
  )
  return fc.record({ contentType: type, body: text })
}
