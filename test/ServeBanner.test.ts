// @tags: unit
import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { bannerLines } from "../src/Cli/Run/Serve.js"

const base = "http://localhost:3000"

/** The `cbs` commands a banner suggests, in the form the README gives them. */
const suggested = (lines: ReadonlyArray<string>) =>
  [...lines.join(" ").matchAll(/`(node bin\/cbs\.js [^`]+)`/g)].map((match) => match[1])

describe("the serve banner suggests commands to run beside the server", () => {
  it("on a database with accounts: a key from the connection page, or from cbs key create, without stopping", () => {
    const lines = bannerLines(base, Option.none(), false)
    assert.include(lines.join("\n"), `sign in on ${base}/connection and create one there`)
    assert.notInclude(lines.join("\n"), "stop the server")
    assert.deepStrictEqual(suggested(lines), ["node bin/cbs.js key create --account <e-mail>"])
  })

  it("on an empty database: import, the demo data or an account", () => {
    const lines = bannerLines(base, Option.none(), true)
    assert.notInclude(lines.join("\n"), "stop the server")
    assert.deepStrictEqual(suggested(lines), [
      "node bin/cbs.js import FILE",
      "node bin/cbs.js seed --demo",
      "node bin/cbs.js account create --email E --name N"
    ])
  })
})
