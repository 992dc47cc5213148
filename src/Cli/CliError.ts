import { Schema } from "effect"

/** A command that could not do its work (an unknown e-mail, an unreadable file); exit status 1. */
export class CliError extends Schema.TaggedError<CliError>()("CliError", { message: Schema.String }) {}

/** A command used wrongly (a bad option value, options that exclude each other); exit status 2, as for @effect/cli's own. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { message: Schema.String }) {}
