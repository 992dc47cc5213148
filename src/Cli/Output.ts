import { Console, Effect } from "effect"
import { flagOption } from "./Values.js"

/** What a command reports: lines for a person, and the same facts as one JSON object for `--json`. */
export interface Result {
  readonly text: ReadonlyArray<string>
  readonly json: Readonly<Record<string, unknown>>
}

/** `--json`, on every command. */
export const jsonOption = flagOption("json", "Print the result as one JSON object on one line, for scripts.")

/** Prints a command's result on stdout: its lines, or with `--json` one JSON object. */
export const printResult =
  (json: boolean) =>
  <E, R>(result: Effect.Effect<Result, E, R>): Effect.Effect<void, E, R> =>
    Effect.flatMap(result, (done) =>
      json
        ? Console.log(JSON.stringify(done.json))
        : Effect.forEach(done.text, (line) => Console.log(line), { discard: true })
    )

/**
 * Loads the module that does a command's work only when the command runs, so that `cbs --help` and every other
 * command start without it (the bundle splits there).
 */
export const load = <M>(module: () => Promise<M>): Effect.Effect<M> => Effect.promise(module)

/**
 * A command's handler: loads the module that does the command's work when the command runs (see `load`), does it
 * with the command's options, and prints its result (see `printResult`).
 */
export const loadAndPrint =
  <M, A extends { readonly json: boolean }, E, R>(
    module: () => Promise<M>,
    work: (run: M, args: A) => Effect.Effect<Result, E, R>
  ) =>
  (args: A): Effect.Effect<void, E, R> =>
    load(module).pipe(
      Effect.flatMap((run) => work(run, args)),
      printResult(args.json)
    )
