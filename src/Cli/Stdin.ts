import { Readable } from "node:stream"
import { Context, Effect, Layer } from "effect"

/** Standard input of a `cbs` command: a password (`--password-stdin`) or an import file (`cbs import -`). */
export class Stdin extends Context.Tag("Cli/Stdin")<
  Stdin,
  {
    /** The stream itself, read once. */
    readonly readable: Readable
    /** All of it, as text. */
    readonly text: Effect.Effect<string>
  }
>() {}

const make = (readable: Readable) =>
  Stdin.of({
    readable,
    text: Effect.promise(async () => {
      let text = ""
      readable.setEncoding("utf8")
      for await (const chunk of readable) text += chunk
      return text
    })
  })

/** The process's own standard input. */
export const StdinLive = Layer.sync(Stdin, () => make(process.stdin))

/** Standard input holding `text` (for running `cbs` in process). */
export const stdinOf = (text: string) => Layer.sync(Stdin, () => make(Readable.from([Buffer.from(text)])))
