/** The response headers the service sends, declared once and referred to from each response. */
export const headers = {
  "X-Request-Id": {
    description: "The request's id, also in every server log line about it (quote it when reporting a problem).",
    required: true,
    schema: { type: "string" }
  },
  "RateLimit-Limit": {
    description: "Requests the credential may make per minute.",
    schema: { type: "integer", minimum: 0 }
  },
  "RateLimit-Remaining": {
    description: "Requests the credential has left in the current minute.",
    schema: { type: "integer", minimum: 0 }
  },
  "RateLimit-Reset": {
    description: "Seconds until the current minute's window ends.",
    schema: { type: "integer", minimum: 0 }
  },
  "RateLimit-Policy": {
    description:
      'The limits that apply: `"requests";q=<per minute>;w=60, "edits";q=<article changes per UTC day>;w=86400`.',
    schema: { type: "string" }
  },
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    required: true,
    schema: { type: "integer", minimum: 0 }
  },
  ETag: {
    description: 'The article\'s current revision, quoted ("3"): send it back as If-Match to change only that version.',
    required: true,
    schema: { type: "string" }
  },
  "Idempotent-Replayed": {
    description: "true when this answer is the one kept for an earlier request with the same Idempotency-Key.",
    schema: { type: "string", enum: ["true"] }
  },
  "WWW-Authenticate": {
    description: "How to authenticate: a Bearer challenge.",
    required: true,
    schema: { type: "string" }
  }
} as const satisfies Record<string, { readonly description: string; readonly required?: true; readonly schema: object }>

export type ResponseHeader = keyof typeof headers

/** A reference to one of the `headers` components. */
export interface HeaderRef {
  readonly $ref: `#/components/headers/${ResponseHeader}`
}

export const headerRef = (name: ResponseHeader): HeaderRef => ({ $ref: `#/components/headers/${name}` })

const LIMIT_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"] as const

/** The headers of a response: its request id always; the limit headers when the credential was counted. */
export const responseHeaders = (status: number, authenticated: boolean): Record<string, HeaderRef> => ({
  "X-Request-Id": headerRef("X-Request-Id"),
  ...(authenticated && status !== 401 && status !== 503
    ? Object.fromEntries(LIMIT_HEADERS.map((name) => [name, headerRef(name)]))
    : {}),
  ...(status === 429 || status === 503 ? { "Retry-After": headerRef("Retry-After") } : {}),
  ...(status === 401 ? { "WWW-Authenticate": headerRef("WWW-Authenticate") } : {})
})
