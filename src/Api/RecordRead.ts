import type { HttpApiEndpoint } from "@effect/platform"
import type { Schema } from "effect"
import { NotFound } from "../Domain/Errors.js"
import { DataResponse } from "../Domain/Pagination.js"

/**
 * A read of one record named by its path (an article, a revision): `{ "data": record }`, or 404 not_found when it
 * does not exist or is not one the key may read.
 */
export const recordRead = <Name extends string, Path extends Schema.Schema.Any, A, I, R>(
  endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, "GET">,
  path: Path & HttpApiEndpoint.HttpApiEndpoint.ValidatePath<Path>,
  record: Schema.Schema<A, I, R>
) => endpoint.setPath(path).addSuccess(DataResponse(record)).addError(NotFound.Body)
