import { randomBytes } from "node:crypto"
import { Clock, Effect, Layer, Option } from "effect"
import { Accounts } from "../../Auth/Accounts.js"
import { ApiKeys } from "../../Auth/ApiKeys.js"
import { AppConfig, publicBaseUrl } from "../../Config.js"
import { DEMO_EMAIL, demoData, demoImageSlugs } from "../../Demo/Demo.js"
import { demoImage } from "../../Demo/Images.js"
import { seedLinkHistory } from "../../Demo/LinkHistory.js"
import type { AccountId } from "../../Domain/Ids.js"
import { PublicUrl } from "../../Http/PublicUrl.js"
import { Importer, type ImportSummary } from "../../Import/Import.js"
import { PastChecks } from "../../LinkChecks/PastChecks.js"
import { MediaStore } from "../../Media/MediaStore.js"
import type { Result } from "../Output.js"

/** What `seedDemo` did: imported the demo data with a new password, or found the demo account already there. */
export type DemoSignIn =
  | {
      readonly _tag: "Imported"
      readonly email: string
      readonly password: string
      readonly key: string
      readonly summary: ImportSummary
    }
  | { readonly _tag: "Existing"; readonly email: string; readonly key: string }

/**
 * What seeding uses. The demo's images are stored in the media store and addressed as the server will serve them:
 * at PUBLIC_BASE_URL, else on localhost at `port` (the one `serve` is about to listen on), else at PORT.
 */
export const seedServicesLive = (port: Option.Option<number> = Option.none()) =>
  Layer.mergeAll(
    Importer.Default,
    PastChecks.Default,
    Accounts.Default,
    ApiKeys.Default,
    MediaStore.Default.pipe(
      Layer.provide(
        Layer.effect(
          PublicUrl,
          Effect.map(AppConfig, (config) =>
            publicBaseUrl(
              config,
              Option.getOrElse(port, () => config.port)
            )
          )
        )
      ),
      // The configuration has been read by then (the database is opened with it), and the media directory is the
      // one the server writes to: a failure here is not the operator's to fix through this command.
      Layer.orDie
    )
  )

/** Where the demo data's revisions say their content came from (`import demo data`). */
const DEMO_SOURCE = "demo data"

/**
 * Imports the built-in demo data set, dated relative to today, with a new random password for the demo user, and
 * creates an API key for the demo account. When the demo account already exists, its data and password are left
 * exactly as they are (edits made since are kept, and its user keeps signing in as before): it only gets a new key.
 */
export const seedDemo = Effect.gen(function* () {
  const importer = yield* Importer
  const accounts = yield* Accounts
  const keys = yield* ApiKeys
  const newKey = (accountId: AccountId) =>
    // A fixed name the key rule accepts: a refusal here would be a bug.
    Effect.map(Effect.orDie(keys.create({ accountId, name: "demo", isAdmin: false })), ({ key }) => key)
  const existing = yield* accounts.findByEmail(DEMO_EMAIL)
  if (Option.isSome(existing)) {
    const key = yield* newKey(existing.value.account_id)
    return { _tag: "Existing", email: DEMO_EMAIL, key } satisfies DemoSignIn
  }
  const password = randomBytes(12).toString("base64url")
  const today = new Date(yield* Clock.currentTimeMillis)
  const media = yield* MediaStore
  const images = new Map<string, string>()
  for (const slug of demoImageSlugs) {
    const image = yield* media.prepare(demoImage(slug)).pipe(Effect.orDie)
    yield* image.write
    images.set(slug, yield* media.urlOf(image.name))
  }
  // The data set is ours: if it does not import, that is a bug, not an operator's mistake.
  const summary = yield* importer
    .importValue(demoData({ today, password, imageUrl: (slug) => images.get(slug) ?? "" }), DEMO_SOURCE)
    .pipe(Effect.orDie)
  const account = yield* accounts.findByEmail(DEMO_EMAIL)
  if (Option.isNone(account)) return yield* Effect.dieMessage("the demo account is missing after its import")
  yield* seedLinkHistory(account.value.account_id, today.getTime())
  const key = yield* newKey(account.value.account_id)
  return { _tag: "Imported", email: DEMO_EMAIL, password, key, summary } satisfies DemoSignIn
}).pipe(Effect.withSpan("Cli.seedDemo"))

/** The sign-in as `--json` prints it. */
export const demoJson = (demo: DemoSignIn): Readonly<Record<string, unknown>> =>
  demo._tag === "Imported"
    ? { imported: true, email: demo.email, password: demo.password, api_key: demo.key, summary: demo.summary }
    : { imported: false, email: demo.email, api_key: demo.key }

const total = (counts: ImportSummary[keyof ImportSummary]) => counts.created + counts.updated + counts.unchanged

/** The lines that tell a person how to use the demo data: the sign-in and the API key, shown once. */
export const demoLines = (demo: DemoSignIn): ReadonlyArray<string> =>
  demo._tag === "Imported"
    ? [
        `Demo data: ${total(demo.summary.sites)} websites, ${total(demo.summary.articles)} articles, ${total(demo.summary.backlinks)} backlinks.`,
        `Demo sign-in: ${demo.email}`,
        `Password: ${demo.password}`,
        `API key: ${demo.key}`,
        "The password and the API key are shown only this once."
      ]
    : [
        "The demo data is already in this database: its websites, articles and backlinks are left as they are.",
        `Demo sign-in: ${demo.email}`,
        "The password is unchanged: the one shown when the demo data was first imported, or the one set since (a reset on the sign-in page, or cbs account password).",
        `API key: ${demo.key}`,
        "The API key is shown only this once."
      ]

/** `cbs seed --demo`. */
export const seedDemoCommand = Effect.map(
  seedDemo,
  (seeded): Result => ({ text: demoLines(seeded), json: demoJson(seeded) })
).pipe(Effect.provide(seedServicesLive()))
