// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { headerSaysNoindex, isRobotsMetaName, metaSaysNoindex } from "../src/Domain/Robots.js"

describe("robots meta tags", () => {
  it("reads the robots and googlebot names in any case, and no other", () => {
    assert.isTrue(isRobotsMetaName("ROBOTS"))
    assert.isTrue(isRobotsMetaName(" GoogleBot "))
    assert.isFalse(isRobotsMetaName("bingbot"))
    assert.isFalse(isRobotsMetaName("description"))
  })

  it("says noindex for noindex or none among the directives, in any case", () => {
    assert.isTrue(metaSaysNoindex("noindex"))
    assert.isTrue(metaSaysNoindex("follow, NoIndex"))
    assert.isTrue(metaSaysNoindex("NONE"))
  })

  it("does not say noindex for index, nofollow, or a word that only contains noindex", () => {
    assert.isFalse(metaSaysNoindex("index, nofollow"))
    assert.isFalse(metaSaysNoindex("noindexed"))
    assert.isFalse(metaSaysNoindex(""))
  })
})

describe("X-Robots-Tag", () => {
  it("says noindex for a noindex or none meant for every crawler", () => {
    assert.isTrue(headerSaysNoindex("noindex"))
    assert.isTrue(headerSaysNoindex("nofollow, NOINDEX"))
    assert.isTrue(headerSaysNoindex("none"))
  })

  it("says noindex for a directive prefixed by googlebot, and the ones after it", () => {
    assert.isTrue(headerSaysNoindex("googlebot: noindex"))
    assert.isTrue(headerSaysNoindex("GoogleBot: nofollow, noindex"))
  })

  it("ignores a noindex meant for another crawler, and the directives after that prefix", () => {
    assert.isFalse(headerSaysNoindex("otherbot: noindex"))
    assert.isFalse(headerSaysNoindex("otherbot: nofollow, noindex"))
    assert.isTrue(headerSaysNoindex("otherbot: nofollow, googlebot: noindex"))
  })

  it("does not take a valued directive (unavailable_after: …, max-snippet: …) for a crawler's name", () => {
    assert.isFalse(headerSaysNoindex("unavailable_after: 2026-12-01, max-snippet: 20"))
    assert.isTrue(headerSaysNoindex("max-snippet: 20, noindex"))
    assert.isTrue(headerSaysNoindex("unavailable_after: Friday, 25-Jun-26 15:00:00 PST, noindex"))
  })
})
