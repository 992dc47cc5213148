// @tags: unit
import { describe, it } from "@effect/vitest"
import { headerSaysNoindex, isRobotsMetaName, metaSaysNoindex } from "../src/Domain/Robots.js"
import { assertAnswers } from "./support/Answers.js"

describe("robots meta tags", () => {
  it("reads the robots and googlebot names in any case, and no other", () => {
    assertAnswers(isRobotsMetaName, { ROBOTS: true, " GoogleBot ": true, bingbot: false, description: false })
  })

  it("says noindex for noindex or none among the directives, in any case", () => {
    assertAnswers(metaSaysNoindex, { noindex: true, "follow, NoIndex": true, NONE: true })
  })

  it("does not say noindex for index, nofollow, or a word that only contains noindex", () => {
    assertAnswers(metaSaysNoindex, { "index, nofollow": false, noindexed: false, "": false })
  })
})

describe("X-Robots-Tag", () => {
  it("says noindex for a noindex or none meant for every crawler", () => {
    assertAnswers(headerSaysNoindex, { noindex: true, "nofollow, NOINDEX": true, none: true })
  })

  it("says noindex for a directive prefixed by googlebot, and the ones after it", () => {
    assertAnswers(headerSaysNoindex, { "googlebot: noindex": true, "GoogleBot: nofollow, noindex": true })
  })

  it("ignores a noindex meant for another crawler, and the directives after that prefix", () => {
    assertAnswers(headerSaysNoindex, {
      "otherbot: noindex": false,
      "otherbot: nofollow, noindex": false,
      "otherbot: nofollow, googlebot: noindex": true
    })
  })

  it("does not take a valued directive (unavailable_after: …, max-snippet: …) for a crawler's name", () => {
    assertAnswers(headerSaysNoindex, {
      "unavailable_after: 2026-12-01, max-snippet: 20": false,
      "max-snippet: 20, noindex": true,
      "unavailable_after: Friday, 25-Jun-26 15:00:00 PST, noindex": true
    })
  })
})
