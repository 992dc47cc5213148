import type { ImportFileJson } from "../Import/ImportFile.js"
import { buildSite, type ImageUrl, imageSlugs } from "./Build.js"
import { lawFirm } from "./LawFirm.js"
import { plumbing } from "./Plumbing.js"

/** The demo account's sign-in e-mail. */
export const DEMO_EMAIL = "demo@example.com"
export const DEMO_ACCOUNT_NAME = "Demo Plumbing Ltd"

/**
 * The built-in demo data set, as an import file so that it goes through the same importer as operators' data: one
 * account with a national plumbing company and a local law firm, their articles and backlinks spread over the four
 * months before `today`. The same `today` (to the day) and password always give the same data.
 */
export const demoData = (options: {
  readonly today: Date
  readonly password: string
  /** Where each article's featured image is served (the images come from `demoImageSlugs` and `demoImage`). */
  readonly imageUrl: ImageUrl
}): ImportFileJson => ({
  accounts: [
    {
      email: DEMO_EMAIL,
      name: DEMO_ACCOUNT_NAME,
      password: options.password,
      sites: [buildSite(plumbing, options.today, options.imageUrl), buildSite(lawFirm, options.today, options.imageUrl)]
    }
  ]
})

/** The slugs of the demo articles that have a featured image: each is stored from `demoImage(slug)` when seeding. */
export const demoImageSlugs: ReadonlyArray<string> = [plumbing, lawFirm].flatMap(imageSlugs)
