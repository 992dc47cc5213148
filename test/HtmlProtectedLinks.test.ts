// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { checkProtectedLinks, extractProtectedLinks, type ProtectedLink } from "../src/Html/ProtectedLinks.js"

const link = (type: ProtectedLink["type"], href: string, text: string): ProtectedLink => ({ type, href, text })
const anchor = ({ type, href, text }: ProtectedLink): string =>
  `<a href="${href}" data-service-protected="${type}">${text}</a>`
const makeBody = (...parts: ReadonlyArray<string>): string => parts.map((part) => `<p>${part}</p>`).join("")

const backlink = link("backlink", "https://client.test/", "Best plumber")
const internal = link("internal", "/guides/boilers", "boiler guide")

describe("extractProtectedLinks", () => {
  it("lists backlink and internal links in document order with href and text as parsed", () => {
    const body = makeBody(
      `Call <a data-service-protected="internal" href="/a?x=1&amp;y=2">the <strong>A</strong> team</a>.`,
      anchor(backlink)
    )
    assert.deepStrictEqual(extractProtectedLinks(body), [link("internal", "/a?x=1&y=2", "the A team"), backlink])
  })

  it("ignores ordinary links and links whose data-service-protected has another value", () => {
    const body = makeBody('<a href="/x">x</a>', '<a href="/y" data-service-protected="sponsored">y</a>')
    assert.deepStrictEqual(extractProtectedLinks(body), [])
  })

  it("lists a protected link without href with an empty href, so it cannot be forged or dropped unnoticed", () => {
    assert.deepStrictEqual(extractProtectedLinks('<p><a data-service-protected="internal">x</a></p>'), [
      link("internal", "", "x")
    ])
  })

  it("returns nothing for a body without links", () => {
    assert.deepStrictEqual(extractProtectedLinks("<p>plain</p>"), [])
  })
})

describe("checkProtectedLinks", () => {
  const current = makeBody(`Intro ${anchor(backlink)}`, `More ${anchor(internal)}`)

  it("accepts an edit that keeps every protected link and changes the text around them", () => {
    const next = makeBody(`New intro ${anchor(backlink)} here`, `Other words ${anchor(internal)}`)
    assert.deepStrictEqual(checkProtectedLinks(current, next), [])
  })

  it("accepts moving protected links to other places in the body", () => {
    const next = `<h2>${anchor(internal)}</h2>` + makeBody("text", `<em>${anchor(backlink)}</em>`)
    assert.deepStrictEqual(checkProtectedLinks(current, next), [])
  })

  it("reports a removed protected link", () => {
    assert.deepStrictEqual(checkProtectedLinks(current, makeBody(anchor(backlink))), [internal])
  })

  it("reports a link whose href changed, as the current link and the new one", () => {
    const changed = { ...backlink, href: "https://other.test/" }
    assert.deepStrictEqual(checkProtectedLinks(current, makeBody(anchor(changed), anchor(internal))), [
      backlink,
      changed
    ])
  })

  it("reports a link whose text changed", () => {
    const changed = { ...internal, text: "boiler guides" }
    assert.deepStrictEqual(checkProtectedLinks(current, makeBody(anchor(backlink), anchor(changed))), [
      internal,
      changed
    ])
  })

  it("reports a link whose data-service-protected value changed", () => {
    const changed = { ...backlink, type: "internal" as const }
    assert.deepStrictEqual(checkProtectedLinks(current, makeBody(anchor(changed), anchor(internal))), [
      backlink,
      changed
    ])
  })

  it("reports a link that lost its data-service-protected attribute", () => {
    const next = makeBody(`<a href="${backlink.href}">${backlink.text}</a>`, anchor(internal))
    assert.deepStrictEqual(checkProtectedLinks(current, next), [backlink])
  })

  it("reports a forged protected link the current body does not have", () => {
    const forged = link("backlink", "https://spam.test/", "cheap pills")
    assert.deepStrictEqual(checkProtectedLinks(current, makeBody(anchor(backlink), anchor(internal), anchor(forged))), [
      forged
    ])
  })

  it("requires a link present twice to stay present twice", () => {
    const twice = makeBody(anchor(backlink), anchor(backlink))
    assert.deepStrictEqual(checkProtectedLinks(twice, makeBody(anchor(backlink), "gone")), [backlink])
    assert.deepStrictEqual(checkProtectedLinks(twice, makeBody("moved", anchor(backlink), anchor(backlink))), [])
  })

  it("reports an extra copy of an existing protected link as forged", () => {
    assert.deepStrictEqual(checkProtectedLinks(current, current + makeBody(anchor(internal))), [internal])
  })

  it("accepts any edit of a body that has no protected links and adds none", () => {
    assert.deepStrictEqual(checkProtectedLinks("<p>a</p>", "<p>b <a href='/x'>x</a></p>"), [])
  })
})
