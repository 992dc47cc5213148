import { randomBytes } from "node:crypto"
import { Command, Options } from "@effect/cli"
import { Clock, Console, Effect, Layer, Option } from "effect"
import { Accounts } from "../Auth/Accounts.js"
import { ApiKeys } from "../Auth/ApiKeys.js"
import { DEMO_EMAIL, demoData } from "../Demo.js"
import { Importer, type ImportSummary } from "../Import.js"
import { CliError } from "./CliError.js"

export interface DemoSignIn {
  readonly email: string
  readonly password: string
  readonly key: string
  readonly summary: ImportSummary
}

export const SeedServicesLive = Layer.mergeAll(Importer.Default, Accounts.Default, ApiKeys.Default)

/**
 * Imports the built-in demo data set, dated relative to today, with a new random password for the demo user,
 * and creates an API key for the demo account. Run again, it updates the same records and sets a new password.
 */
export const seedDemo = Effect.gen(function* () {
  const importer = yield* Importer
  const accounts = yield* Accounts
  const keys = yield* ApiKeys
  const password = randomBytes(12).toString("base64url")
  const today = new Date(yield* Clock.currentTimeMillis)
  // The data set is ours: if it does not import, that is a bug, not an operator's mistake.
  const summary = yield* importer.importValue(demoData({ today, password }), "demo data").pipe(Effect.orDie)
  const account = yield* accounts.findByEmail(DEMO_EMAIL)
  if (Option.isNone(account)) return yield* Effect.dieMessage("the demo account is missing after its import")
  const { key } = yield* keys.create({ accountId: account.value.account_id, name: "demo", isAdmin: false })
  return { email: DEMO_EMAIL, password, key, summary } satisfies DemoSignIn
}).pipe(Effect.withSpan("Cli.seedDemo"))

const total = (counts: ImportSummary[keyof ImportSummary]) => counts.created + counts.updated + counts.unchanged

/** The lines that tell a person how to use the demo data: the sign-in and the API key, shown once. */
export const demoLines = (demo: DemoSignIn): ReadonlyArray<string> => [
  `Demo data: ${total(demo.summary.sites)} websites, ${total(demo.summary.articles)} articles, ${total(demo.summary.backlinks)} backlinks.`,
  `Demo sign-in: ${demo.email}`,
  `Password: ${demo.password}`,
  `API key: ${demo.key}`,
  "The password and the API key are shown only this once."
]

export const seedCommand = Command.make(
  "seed",
  {
    demo: Options.boolean("demo").pipe(
      Options.withDescription("Import the built-in demo data set and print a sign-in and an API key for it.")
    )
  },
  ({ demo }) =>
    Effect.gen(function* () {
      if (!demo) return yield* new CliError({ message: "nothing to seed: use `cbs seed --demo`" })
      const seeded = yield* seedDemo
      for (const line of demoLines(seeded)) yield* Console.log(line)
    }).pipe(Effect.provide(SeedServicesLive))
).pipe(Command.withDescription("Import the built-in demo data set."))
