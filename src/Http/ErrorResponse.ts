import { HttpServerResponse } from "@effect/platform"
import { publicError } from "../Domain/Errors.js"

/**
 * The response for a public error (see Domain/Errors.ts), for the routes that answer outside HttpApi: its declared
 * status and body, and any extra headers (`Retry-After`, `Allow`, a challenge).
 */
export const errorResponse = (error: unknown, headers: Readonly<Record<string, string>> = {}) => {
  const { status, body } = publicError(error)
  return HttpServerResponse.unsafeJson(body, { status, headers })
}
