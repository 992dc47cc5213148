import { Schema } from "effect"

/** A mistake in how a command was used (an unknown e-mail, a bad value); reported as one line on stderr. */
export class CliError extends Schema.TaggedError<CliError>()("CliError", { message: Schema.String }) {}
