import type { ImportFileJson } from "../Import/ImportFile.js"
import { buildSite } from "./Build.js"
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
export const demoData = (options: { readonly today: Date; readonly password: string }): ImportFileJson => ({
  accounts: [
    {
      email: DEMO_EMAIL,
      name: DEMO_ACCOUNT_NAME,
      password: options.password,
      sites: [buildSite(plumbing, options.today), buildSite(lawFirm, options.today)]
    }
  ]
})
