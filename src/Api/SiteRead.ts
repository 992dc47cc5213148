import type { HttpApiEndpoint } from "@effect/platform"
import { NotFound, ValidationError } from "../Domain/Errors.js"
import { SitePath } from "./Paths.js"

/**
 * A read of one website's data (`/sites/:id/…`, with a query): 404 not_found when the website is not one the key may
 * read, 422 validation_error when the query is out of bounds.
 */
export const siteRead = <Name extends string>(endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, "GET">) =>
  endpoint.setPath(SitePath).addError(NotFound.Body).addError(ValidationError.Body)
