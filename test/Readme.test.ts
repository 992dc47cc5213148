import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { cbsEnv, freePort, serveReady, tempDir } from "./support/CbsProcess.js"

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")

/** The first fenced block (its body) after the heading `heading`. */
const blockAfter = (heading: string) => {
  const start = readme.indexOf(`\n${heading}\n`)
  assert.isAtLeast(start, 0, `README has no ${heading}`)
  const match = /```[a-z]*\n([\s\S]*?)\n```/.exec(readme.slice(start))
  assert.isNotNull(match, `no code block after ${heading}`)
  return match![1]!
}

/** Whether `curl` is on the PATH. */
const hasCurl = () => spawnSync("bash", ["-c", "command -v curl"], { encoding: "utf8" }).status === 0

describe("the README, as written", () => {
  it("warns that the first start can take up to a minute, and why, before anyone thinks it hung", () => {
    const quickStart = readme.slice(0, readme.indexOf("Content and backlink service listening on"))
    assert.match(quickStart, /first start can take up to a minute on a slow machine/)
    assert.match(quickStart, /builds the program[\s\S]*migrates the database/)
  })

  it.live(
    "npm start's banner is the one the quick start shows, and every API example runs on the demo data",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("cbs-readme-")
        const port = yield* freePort
        const { served, key } = yield* serveReady(yield* cbsEnv(join(dir, "data"), { PORT: String(port) }))

        // The quick start's banner, line for line (its password and key are placeholders).
        const banner = served.stdout().split("\n")
        for (const line of bannerOf()) {
          const expected = line.replace("http://localhost:3000", `http://localhost:${port}`)
          const pattern = new RegExp(
            `^${expected
              .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
              .replace("<random password>", "\\S+")
              .replaceAll("cbs_…", "cbs_\\S+")}$`
          )
          assert.isTrue(
            banner.some((printed) => pattern.test(printed)),
            `${line}\nnot in:\n${served.stdout()}`
          )
        }

        // The API examples, with the key npm start printed and this server's port; any answer but 2xx fails. They are
        // curl commands: where there is no curl (a build sandbox), they are not run, and the test says so.
        if (!hasCurl()) {
          process.stdout.write("README API examples not run: no curl found.\n")
          return
        }
        const examples = blockAfter("## The API by example")
          .replace("http://localhost:3000", `http://localhost:${port}`)
          .replace(/^API_KEY=cbs_….*$/m, `API_KEY=${key}`)
        const calls = examples.split("\n").filter((line) => /^curl /.test(line)).length
        const run = spawnSync(
          "bash",
          [
            "-c",
            `set -euo pipefail
curl() { command curl -fsS -o /dev/null -w '%{http_code} %{url_effective}\\n' "$@"; }
${examples}`
          ],
          { cwd: dir, encoding: "utf8" }
        )
        assert.strictEqual(run.status, 0, `${run.stdout}\n${run.stderr}`)
        const answered = run.stdout.trim().split("\n")
        assert.strictEqual(answered.length, calls, run.stdout)
        for (const line of answered) assert.match(line, /^20\d /, run.stdout)
      }).pipe(Effect.scoped),
    240_000
  )
})

/** The banner lines the quick start shows after `npm start`. */
function bannerOf() {
  const start = readme.indexOf("\n## Quick start\n")
  const blocks = [...readme.slice(start).matchAll(/```([a-z]*)\n([\s\S]*?)\n```/g)]
  const banner = blocks.find((block) => block[1] === "" && block[2]!.includes("listening on"))
  assert.isDefined(banner, "the quick start shows the banner")
  return banner![2]!.split("\n")
}
