import { HttpServerResponse } from "@effect/platform"
import { publicError, Unavailable } from "../Domain/Errors.js"

/**
 * The response for a public error (see Domain/Errors.ts), for the routes that answer outside HttpApi and for an error
 * whose answer has headers: its declared status, body and headers (`Retry-After` from its own fields), and any extra
 * headers (`Allow`, a challenge).
 */
export const errorResponse = (error: unknown, headers: Readonly<Record<string, string>> = {}) => {
  const answer = publicError(error)
  return HttpServerResponse.unsafeJson(answer.body, {
    status: answer.status,
    headers: { ...answer.headers, ...headers }
  })
}

/** 503 `unavailable` with `Retry-After`: a request the service could not take on now (past its deadline, overloaded). */
export const unavailableResponse = (message: string) => errorResponse(new Unavailable({ message }))
