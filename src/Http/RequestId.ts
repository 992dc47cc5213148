import { Context } from "effect"

/** The id of the request being served; sent back as `X-Request-Id` and attached to every log line. */
export class RequestId extends Context.Reference<RequestId>()("Http/RequestId", { defaultValue: () => "" }) {}
