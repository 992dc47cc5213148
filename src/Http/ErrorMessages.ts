/**
 * The message of a 500. A request that may change something (any method but GET and HEAD) failed at a point where
 * its change may or may not have been saved (a commit whose answer was lost, say), so the message says so, and how
 * to retry safely.
 */
export const internalErrorMessage = (requestId: string, method: string) =>
  method === "GET" || method === "HEAD"
    ? `Something went wrong on our side. Request id: ${requestId}.`
    : `Something went wrong on our side, and whether the change was saved is not known. Retry with the same Idempotency-Key to have it applied at most once (or read the resource first). Request id: ${requestId}.`
