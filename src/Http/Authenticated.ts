import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { CallLog } from "../Audit/CallLog.js"
import { Authentication } from "../Auth/Api.js"
import { RequestLimit } from "../Limits/RequestLimit.js"
import { RequestBody } from "./RequestBodies.js"

/**
 * The middleware chain of every authenticated group, the same for an HTTP request and an agent's tool call:
 * `Authentication` (who calls), then `CallLog` (the call is recorded, whatever its outcome), then `RequestLimit`
 * (the per-credential limit and its headers), then `RequestBody` (the body's content type and nesting). The
 * framework runs a group's middleware last-added first.
 */
export const authenticated = <Id extends string, Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any, E, R>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R>
) => group.middleware(RequestBody).middleware(RequestLimit).middleware(CallLog).middleware(Authentication)
