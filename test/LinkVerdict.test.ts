// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { type CheckOutcome, type LostReason, outcomeOf, type PageFetch } from "../src/Domain/LinkCheck.js"
import {
  CHECK_INTERVALS_MS,
  type LinkHealth,
  linkVerdict,
  type NewCheck,
  type PastCheck,
  regularCheckAt
} from "../src/Domain/LinkVerdict.js"
import { sized } from "./support/TestSize.js"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const T0 = Date.parse("2026-11-02T08:00:00Z")

const noJitter = () => 0
const halfJitter = () => 0.5

const live: LinkHealth = { status: "live", lost_reason: null, indexable: true }
const pending: LinkHealth = { status: "pending", lost_reason: null, indexable: null }
const lostFor = (lost_reason: LostReason): LinkHealth => ({ status: "lost", lost_reason, indexable: null })

const past = (at: number, outcome: CheckOutcome): PastCheck => ({ at, outcome })
const makeCheck = (at: number, outcome: CheckOutcome, noindex: Partial<NewCheck> = {}): NewCheck => ({
  at,
  outcome,
  metaNoindex: false,
  headerNoindex: false,
  ...noindex
})

describe("linkVerdict: the link found", () => {
  it("makes a pending backlink live and indexable, next checked 7 days later", () => {
    assert.deepStrictEqual(linkVerdict(pending, [], makeCheck(T0, "found"), noJitter), {
      status: "live",
      lost_reason: null,
      indexable: true,
      next_check_at: T0 + 7 * DAY,
      changed: true
    })
  })

  it("makes a lost backlink live again and clears its reason", () => {
    const verdict = linkVerdict(
      lostFor("link_removed"),
      [past(T0 - 14 * DAY, "link_removed")],
      makeCheck(T0, "found"),
      noJitter
    )
    assert.deepStrictEqual([verdict.status, verdict.lost_reason, verdict.changed], ["live", null, true])
  })

  it("keeps a live backlink live without calling it a change", () => {
    assert.isFalse(linkVerdict(live, [past(T0 - 7 * DAY, "found")], makeCheck(T0, "found"), noJitter).changed)
  })

  it("keeps the link live but not indexable when the page says noindex in a meta tag or the X-Robots-Tag header", () => {
    const byMeta = linkVerdict(live, [], makeCheck(T0, "found", { metaNoindex: true }), noJitter)
    const byHeader = linkVerdict(live, [], makeCheck(T0, "found", { headerNoindex: true }), noJitter)
    for (const verdict of [byMeta, byHeader]) {
      assert.deepStrictEqual([verdict.status, verdict.indexable, verdict.changed], ["live", false, false])
    }
  })
})

describe("linkVerdict: the page answered without the link", () => {
  it("makes a live backlink lost at once, link_removed, next checked 14 days later", () => {
    assert.deepStrictEqual(linkVerdict(live, [], makeCheck(T0, "link_removed"), noJitter), {
      status: "lost",
      lost_reason: "link_removed",
      indexable: null,
      next_check_at: T0 + 14 * DAY,
      changed: true
    })
  })

  it("makes a pending backlink lost at once, redirected_away, when the page redirects to one without the link", () => {
    const verdict = linkVerdict(pending, [], makeCheck(T0, "redirected_away"), noJitter)
    assert.deepStrictEqual([verdict.status, verdict.lost_reason], ["lost", "redirected_away"])
  })
})

describe("linkVerdict: 404 and 410", () => {
  it("keeps a live backlink live after one 404, its indexability too, and checks again an hour later", () => {
    assert.deepStrictEqual(
      linkVerdict(live, [past(T0 - 7 * DAY, "found")], makeCheck(T0, "page_not_found"), noJitter),
      {
        ...live,
        next_check_at: T0 + HOUR,
        changed: false
      }
    )
  })

  it("makes it lost, page_not_found, on a second 404 an hour or more after the first", () => {
    const verdict = linkVerdict(live, [past(T0, "page_not_found")], makeCheck(T0 + HOUR, "page_not_found"), noJitter)
    assert.deepStrictEqual(
      [verdict.status, verdict.lost_reason, verdict.next_check_at, verdict.changed],
      ["lost", "page_not_found", T0 + HOUR + 14 * DAY, true]
    )
  })

  it("does not on a second 404 less than an hour after the first", () => {
    const verdict = linkVerdict(
      live,
      [past(T0, "page_not_found")],
      makeCheck(T0 + HOUR - 1, "page_not_found"),
      noJitter
    )
    assert.strictEqual(verdict.status, "live")
  })

  it("does not count a 404 from before the link was last found", () => {
    const history = [past(T0, "page_not_found"), past(T0 + HOUR, "found")]
    assert.strictEqual(linkVerdict(live, history, makeCheck(T0 + 2 * HOUR, "page_not_found"), noJitter).status, "live")
  })

  it("counts a 404 an hour older even with an unreachable check between them", () => {
    const history = [past(T0, "page_not_found"), past(T0 + 30 * MINUTE, "unreachable")]
    const verdict = linkVerdict(live, history, makeCheck(T0 + 2 * HOUR, "page_not_found"), noJitter)
    assert.deepStrictEqual([verdict.status, verdict.lost_reason], ["lost", "page_not_found"])
  })
})

describe("linkVerdict: unreachable", () => {
  it("keeps a live backlink live after one failure and checks again 12 hours later", () => {
    assert.deepStrictEqual(linkVerdict(live, [], makeCheck(T0, "unreachable"), noJitter), {
      ...live,
      next_check_at: T0 + 12 * HOUR,
      changed: false
    })
  })

  it("keeps it live after two failures, however far apart", () => {
    const verdict = linkVerdict(live, [past(T0, "unreachable")], makeCheck(T0 + 30 * DAY, "unreachable"), noJitter)
    assert.strictEqual(verdict.status, "live")
  })

  it("keeps it live after three failures over less than 24 hours", () => {
    const history = [past(T0, "unreachable"), past(T0 + 12 * HOUR, "unreachable")]
    const verdict = linkVerdict(live, history, makeCheck(T0 + DAY - 1, "unreachable"), noJitter)
    assert.deepStrictEqual([verdict.status, verdict.next_check_at], ["live", T0 + DAY - 1 + 12 * HOUR])
  })

  it("makes it lost, unreachable, on the third failure 24 hours or more after the first", () => {
    const history = [past(T0, "unreachable"), past(T0 + 12 * HOUR, "unreachable")]
    const verdict = linkVerdict(live, history, makeCheck(T0 + DAY, "unreachable"), noJitter)
    assert.deepStrictEqual(
      [verdict.status, verdict.lost_reason, verdict.next_check_at, verdict.changed],
      ["lost", "unreachable", T0 + DAY + 14 * DAY, true]
    )
  })

  it("counts 404s among the failures, and not those from before the link was last found", () => {
    const mixed = [past(T0, "page_not_found"), past(T0 + 12 * HOUR, "unreachable")]
    assert.strictEqual(
      linkVerdict(live, mixed, makeCheck(T0 + DAY, "unreachable"), noJitter).lost_reason,
      "unreachable"
    )
    const interrupted = [past(T0 - HOUR, "unreachable"), past(T0, "found"), past(T0 + 12 * HOUR, "unreachable")]
    assert.strictEqual(linkVerdict(live, interrupted, makeCheck(T0 + DAY, "unreachable"), noJitter).status, "live")
  })

  it("keeps a pending backlink pending until the failures are confirmed", () => {
    const verdict = linkVerdict(pending, [past(T0, "unreachable")], makeCheck(T0 + 12 * HOUR, "unreachable"), noJitter)
    assert.deepStrictEqual([verdict.status, verdict.lost_reason, verdict.changed], ["pending", null, false])
  })
})

describe("linkVerdict: a lost backlink", () => {
  it("stays lost with its reason after one failure, on its 14-day schedule", () => {
    const history = [past(T0 - 14 * DAY, "link_removed")]
    assert.deepStrictEqual(linkVerdict(lostFor("link_removed"), history, makeCheck(T0, "unreachable"), noJitter), {
      ...lostFor("link_removed"),
      next_check_at: T0 + 14 * DAY,
      changed: false
    })
  })

  it("changes its reason when a failure is confirmed like any other", () => {
    const history = [past(T0 - 14 * DAY, "page_not_found")]
    const verdict = linkVerdict(lostFor("link_removed"), history, makeCheck(T0, "page_not_found"), noJitter)
    assert.deepStrictEqual([verdict.status, verdict.lost_reason, verdict.changed], ["lost", "page_not_found", true])
  })
})

describe("linkVerdict: history and jitter", () => {
  it("reads the history in any order and ignores checks at or after the new one", () => {
    const history = [past(T0 + 12 * HOUR, "unreachable"), past(T0 + 2 * DAY, "found"), past(T0, "unreachable")]
    const verdict = linkVerdict(live, history, makeCheck(T0 + DAY, "unreachable"), noJitter)
    assert.strictEqual(verdict.lost_reason, "unreachable")
    const same = [past(T0, "page_not_found"), past(T0 + HOUR, "page_not_found")]
    assert.strictEqual(linkVerdict(live, same, makeCheck(T0 + HOUR, "page_not_found"), noJitter).status, "lost")
    assert.strictEqual(
      linkVerdict(live, same.slice(1), makeCheck(T0 + HOUR, "page_not_found"), noJitter).status,
      "live"
    )
  })

  it("brings regular checks forward by up to a tenth of the interval, and delays retries by up to a tenth", () => {
    assert.strictEqual(linkVerdict(live, [], makeCheck(T0, "found"), halfJitter).next_check_at, T0 + 7 * DAY * 0.95)
    assert.strictEqual(
      linkVerdict(live, [], makeCheck(T0, "link_removed"), halfJitter).next_check_at,
      T0 + 14 * DAY * 0.95
    )
    assert.strictEqual(
      linkVerdict(live, [], makeCheck(T0, "page_not_found"), halfJitter).next_check_at,
      T0 + HOUR * 1.05
    )
    assert.strictEqual(
      linkVerdict(live, [], makeCheck(T0, "unreachable"), halfJitter).next_check_at,
      T0 + 12 * HOUR * 1.05
    )
  })

  it("keeps a random source's values within [0, 1)", () => {
    assert.strictEqual(
      regularCheckAt("live", T0, () => -3),
      T0 + 7 * DAY
    )
    assert.isAtLeast(
      regularCheckAt("live", T0, () => 7),
      T0 + 7 * DAY * 0.9
    )
  })

  it("checks pending backlinks daily, live ones within 7 days and lost ones within 14", () => {
    assert.deepStrictEqual(CHECK_INTERVALS_MS, { pending: DAY, live: 7 * DAY, lost: 14 * DAY })
    assert.strictEqual(regularCheckAt("pending", T0, noJitter), T0 + DAY)
  })
})

const outcomeArb = fc.constantFrom<CheckOutcome>(
  "found",
  "link_removed",
  "redirected_away",
  "page_not_found",
  "unreachable"
)
const healthArb = fc.oneof(
  fc.constant(pending),
  fc.boolean().map((indexable): LinkHealth => ({ status: "live", lost_reason: null, indexable })),
  fc.constantFrom<LostReason>("page_not_found", "link_removed", "redirected_away", "unreachable").map(lostFor)
)
const historyArb = fc.array(fc.record({ at: fc.integer({ min: T0 - 60 * DAY, max: T0 - 1 }), outcome: outcomeArb }), {
  maxLength: 12
})
const randomArb = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })
const isFailedFetch = (outcome: CheckOutcome) => outcome === "page_not_found" || outcome === "unreachable"

describe("linkVerdict: properties", () => {
  it("a found link is live without a reason; anything else never makes a backlink live", () => {
    fc.assert(
      fc.property(healthArb, historyArb, outcomeArb, randomArb, (health, history, outcome, r) => {
        const verdict = linkVerdict(health, history, makeCheck(T0, outcome), () => r)
        if (outcome === "found") assert.deepStrictEqual([verdict.status, verdict.lost_reason], ["live", null])
        else assert.isTrue(verdict.status === health.status || verdict.status === "lost")
      }),
      { numRuns: sized(2000, 300) }
    )
  })

  it("one failed fetch since the link was last found never changes a backlink's status or reason", () => {
    fc.assert(
      fc.property(
        healthArb,
        historyArb,
        fc.constantFrom<CheckOutcome>("page_not_found", "unreachable"),
        randomArb,
        (health, history, outcome, r) => {
          const sorted = [...history].sort((a, b) => a.at - b.at)
          const sinceFound = sorted.slice(sorted.findLastIndex((check) => check.outcome === "found") + 1)
          fc.pre(!sinceFound.some((check) => isFailedFetch(check.outcome)))
          const verdict = linkVerdict(health, history, makeCheck(T0, outcome), () => r)
          assert.deepStrictEqual(
            [verdict.status, verdict.lost_reason, verdict.changed],
            [health.status, health.lost_reason, false]
          )
        }
      ),
      { numRuns: sized(2000, 300) }
    )
  })

  it("the next check is after the new one and at most 14 days later", () => {
    fc.assert(
      fc.property(healthArb, historyArb, outcomeArb, randomArb, (health, history, outcome, r) => {
        const { next_check_at } = linkVerdict(health, history, makeCheck(T0, outcome), () => r)
        assert.isAbove(next_check_at, T0)
        assert.isAtMost(next_check_at, T0 + CHECK_INTERVALS_MS.lost)
      }),
      { numRuns: sized(2000, 300) }
    )
  })

  /** Checks a live backlink on the verdict's own schedule while every check gives `outcome`, until it is lost. */
  const untilLost = (outcome: CheckOutcome, randoms: ReadonlyArray<number>) => {
    const history: Array<PastCheck> = [past(T0 - 7 * DAY, "found")]
    let health: LinkHealth = live
    let at = T0
    for (const r of randoms) {
      const verdict = linkVerdict(health, history, makeCheck(at, outcome), () => r)
      history.push(past(at, outcome))
      health = verdict
      if (verdict.status === "lost") return { health, checks: history.length - 1, lostAt: at }
      at = verdict.next_check_at
    }
    return { health, checks: history.length - 1, lostAt: undefined }
  }

  const confirmations = [
    { outcome: "unreachable", page: "stays unreachable", checks: 3, within: [DAY, 27 * HOUR], when: "24 to 27 hours" },
    {
      outcome: "page_not_found",
      page: "stays 404",
      checks: 2,
      within: [HOUR, 66 * MINUTE],
      when: "1 hour to 66 minutes"
    }
  ] as const
  for (const { outcome, page, checks, within, when } of confirmations) {
    it(`on its own schedule, a page that ${page} is lost (${outcome}) on check ${checks}, ${when} after the first`, () => {
      fc.assert(
        fc.property(fc.array(randomArb, { minLength: 5, maxLength: 5 }), (randoms) => {
          const lost = untilLost(outcome, randoms)
          assert.deepStrictEqual([lost.health.lost_reason, lost.checks], [outcome, checks])
          assert.isAtLeast(lost.lostAt! - T0, within[0])
          assert.isAtMost(lost.lostAt! - T0, within[1])
        }),
        { numRuns: sized(1000, 200) }
      )
    })
  }
})

describe("outcomeOf", () => {
  const answered = (
    status: number,
    found: boolean,
    finalUrl = "https://blog.test/a"
  ): Extract<PageFetch, { _tag: "Answered" }> => ({
    _tag: "Answered",
    status,
    sourceUrl: "https://blog.test/a",
    finalUrl,
    found
  })

  it("is found for a success with the link (for a 304, as the check that sent the validators found it), wherever the redirects ended", () => {
    assert.strictEqual(outcomeOf(answered(200, true)), "found")
    assert.strictEqual(outcomeOf(answered(304, true)), "found")
    assert.strictEqual(outcomeOf(answered(200, true, "https://blog.test/moved")), "found")
  })

  it("is link_removed for a success without the link on the same page (an https upgrade included)", () => {
    assert.strictEqual(outcomeOf(answered(200, false)), "link_removed")
    assert.strictEqual(outcomeOf({ ...answered(200, false), sourceUrl: "http://blog.test/a" }), "link_removed")
  })

  it("is redirected_away for a success without the link on another page", () => {
    assert.strictEqual(outcomeOf(answered(200, false, "https://blog.test/")), "redirected_away")
  })

  it("is page_not_found for 404 and 410, even on a page that has the link", () => {
    assert.strictEqual(outcomeOf(answered(404, false)), "page_not_found")
    assert.strictEqual(outcomeOf(answered(410, true)), "page_not_found")
  })

  it("is unreachable without an answer, for a 5xx, and for any other status that hides the page", () => {
    assert.strictEqual(outcomeOf({ _tag: "NoAnswer" }), "unreachable")
    for (const status of [500, 503, 401, 403, 429, 451, 302]) {
      assert.strictEqual(outcomeOf(answered(status, true)), "unreachable", String(status))
    }
  })
})
