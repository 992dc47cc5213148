import { HelpDoc, Options } from "@effect/cli"

const wholeNumber = /^\d{1,15}$/

/** An option holding a positive id (`--id 4`); any other value is a usage error that names the option. */
export const idOption = (name: string, description: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("N"),
    Options.withDescription(description),
    Options.mapTryCatch(
      (value) => {
        if (!wholeNumber.test(value) || Number(value) < 1) throw new Error(value)
        return Number(value)
      },
      () => HelpDoc.p(`--${name} must be a positive whole number`)
    )
  )

/** `--port N`: 0 (any free port) to 65535. */
export const portOption = (description: string) =>
  Options.text("port").pipe(
    Options.withPseudoName("N"),
    Options.withDescription(description),
    Options.mapTryCatch(
      (value) => {
        if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new Error(value)
        return Number(value)
      },
      () => HelpDoc.p("--port must be a port number from 0 to 65535")
    ),
    Options.optional
  )
