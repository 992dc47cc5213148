import { Command, type Options } from "@effect/cli"
import type { Effect, Types } from "effect"
import { jsonOption, loadAndPrint, type Result } from "./Output.js"

type Parsed<Config extends Command.Command.Config> = Command.Command.ParseConfig<Config>

/**
 * Declares the commands whose work is done by one module (`module`, loaded only when one of them runs: see
 * `loadAndPrint`). Each command takes its own options and `--json`, and prints what its work returns.
 */
export const commandsIn =
  <M>(module: () => Promise<M>) =>
  <Name extends string, const Config extends Command.Command.Config, E, R>(
    name: Name,
    description: string,
    options: Config,
    work: (run: M, args: Parsed<Config>) => Effect.Effect<Result, E, R>
  ) =>
    Command.make(
      name,
      { ...options, json: jsonOption },
      // What @effect/cli parses from `options` plus `--json`; TypeScript cannot see it for a generic `Config`.
      loadAndPrint<M, Parsed<Config> & { readonly json: boolean }, E, R>(module, work) as (
        args: Types.Simplify<Parsed<Config & { readonly json: Options.Options<boolean> }>>
      ) => Effect.Effect<void, E, R>
    ).pipe(Command.withDescription(description))

/** The subcommands a group takes: one or more commands, as `Command.withSubcommands` declares them. */
type Subcommands = Parameters<typeof Command.withSubcommands>[1]

/** A command that only groups others (`cbs key create`, `cbs key revoke`): its name is the first word. */
export const commandGroup = <Name extends string, const S extends Subcommands>(
  name: Name,
  description: string,
  subcommands: S
) => Command.make(name).pipe(Command.withDescription(description), Command.withSubcommands(subcommands))
