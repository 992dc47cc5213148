import { HttpServerResponse } from "@effect/platform"
import { publicError, Unavailable } from "../Domain/Errors.js"

/**
 * The response for a public error (see Domain/Errors.ts), for the routes that answer outside HttpApi: its declared
 * status and body, and any extra headers (`Retry-After`, `Allow`, a challenge).
 */
export const errorResponse = (error: unknown, headers: Readonly<Record<string, string>> = {}) => {
  const { status, body } = publicError(error)
  return HttpServerResponse.unsafeJson(body, { status, headers })
}

/** The seconds a 503 tells its client to wait before it retries. */
export const RETRY_UNAVAILABLE_SECONDS = 1

/** 503 `unavailable` with `Retry-After`: a request the service could not take on now (past its deadline, overloaded). */
export const unavailableResponse = (message: string) =>
  errorResponse(new Unavailable({ message }), { "retry-after": String(RETRY_UNAVAILABLE_SECONDS) })
