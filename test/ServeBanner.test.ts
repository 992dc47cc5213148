// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { bannerLines } from "../src/Cli/Run/Serve.js"

const base = "http://localhost:3000"

/** The `npx cbs …` commands a banner suggests running now, not after stopping the server. */
const runNow = (lines: ReadonlyArray<string>) => {
  const text = lines.join(" ")
  return text.includes("stop the server") ? [] : [...text.matchAll(/`(npx cbs [^`]+)`/g)].map((match) => match[1])
}

describe("the serve banner suggests only what works while the server runs", () => {
  it("on the embedded database, which the server owns, no cbs command is suggested before stopping it", () => {
    const later = bannerLines(base, Option.none(), false, true)
    assert.include(later.join("\n"), `sign in on ${base}/connection and create one there`)
    assert.include(later.join("\n"), "stop the server (Ctrl+C) and run `npx cbs key create --account <e-mail>`")
    assert.deepStrictEqual(runNow(later), [])
    const empty = bannerLines(base, Option.none(), true, true)
    assert.include(empty.join("\n"), "stop the server (Ctrl+C), then import data with `npx cbs import FILE`")
    assert.deepStrictEqual(runNow(empty), [])
  })

  it("on PostgreSQL, where cbs runs beside the server, the commands are suggested as they are", () => {
    assert.deepStrictEqual(runNow(bannerLines(base, Option.none(), false, false)), [
      "npx cbs key create --account <e-mail>"
    ])
    assert.deepStrictEqual(runNow(bannerLines(base, Option.none(), true, false)), [
      "npx cbs import FILE",
      "npx cbs seed --demo",
      "npx cbs account create --email E --name N"
    ])
  })
})
