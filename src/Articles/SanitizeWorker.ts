import { type SanitizeResult, sanitize } from "../Html/Sanitize.js"

/** A task of the sanitiser's worker pool (see Sanitizer): the sanitiser's answer for one body. */
export default (source: string): SanitizeResult => sanitize(source)
