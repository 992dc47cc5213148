import { HelpDoc, Options } from "@effect/cli"

/** An option holding text (`--email E`): the placeholder the help shows for its value, and what it is for. */
export const textOption = (name: string, pseudoName: string, description: string) =>
  Options.text(name).pipe(Options.withPseudoName(pseudoName), Options.withDescription(description))

/** A flag (`--admin`): off unless given. */
export const flagOption = (name: string, description: string) =>
  Options.boolean(name).pipe(Options.withDescription(description))

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
