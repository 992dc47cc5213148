import { readFileSync } from "node:fs"
import { get } from "node:http"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { cbsEnv, freePort, serveReady, tempDir } from "./support/CbsProcess.js"
import { curlsOf, docFiles, hasCurl, runBlocks, shellBlocks } from "./support/DocExamples.js"

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")

describe("the README and the docs, as written", () => {
  it("warns that the first start can take up to a minute, and why, before anyone thinks it hung", () => {
    const quickStart = readme.slice(0, readme.indexOf("Content and backlink service listening on"))
    assert.match(quickStart, /first start can take up to a minute on a slow machine/)
    assert.match(quickStart, /builds the program[\s\S]*migrates the database/)
  })

  it("a block that is not run says why right before its fence, so none is skipped unnoticed", () => {
    for (const file of docFiles()) {
      const text = readFileSync(new URL(`../${file}`, import.meta.url), "utf8")
      const markers = text.split("\n").flatMap((line, i, lines) => (/^<!-- not run/.test(line) ? [lines[i + 1]] : []))
      for (const next of markers)
        assert.match(next ?? "", /^```(sh|bash|shell)$/, `${file}: a not-run marker stands before its block`)
    }
    assert.isAtLeast(shellBlocks("README.md").filter((block) => block.notRun === undefined).length, 1)
  })

  it.live(
    "npm start's banner is the one the quick start shows, and every shell example of the docs runs on the demo data",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("cbs-readme-")
        const port = yield* freePort
        const cbs = yield* cbsEnv(join(dir, "data"), { PORT: String(port) })
        const { served, key } = yield* serveReady(cbs)

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

        // Every doc's shell examples, as written, on this demo (test/support/DocExamples.ts has the conventions).
        // They are curl commands: where there is no curl (a build sandbox), they are not run, and the test says so.
        if (!hasCurl()) {
          process.stdout.write("Doc examples not run: no curl found.\n")
          return
        }
        const env = { port, key, cwd: dir, cbs }
        for (const file of docFiles()) {
          const blocks = shellBlocks(file).filter((block) => block.notRun === undefined)
          const run = runBlocks(blocks, env)
          assert.strictEqual(run.status, 0, run.stderr)
          assert.deepStrictEqual(
            run.answered.map((line) => line.split(" ")[0]),
            curlsOf(blocks),
            run.stderr
          )
          // What the examples leave behind still shows: every article's featured image is one this service serves.
          if (blocks.length > 0) yield* imagesServed(port, key)
        }

        // The convention itself: an announced status must be the one answered, and an unannounced non-2xx fails.
        const block = (...lines: Array<string>) => [{ file: "example.md", line: 1, lines, notRun: undefined }]
        const missing = `curl "http://localhost:3000/api/v1/articles/999999" -H "X-API-Key: ${key}"`
        assert.strictEqual(runBlocks(block("# → 404 not_found", missing), env).status, 0)
        assert.notStrictEqual(runBlocks(block("# a missing article", missing), env).status, 0)
        assert.notStrictEqual(runBlocks(block("# → 409 replacement_conflict", missing), env).status, 0)
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

/**
 * A GET on a connection of its own. The examples run synchronously (the event loop waits for bash), so a kept-alive
 * connection of fetch's pool may have been closed by the server meanwhile without this process seeing it.
 */
const getOnce = (url: string, headers: Record<string, string> = {}) =>
  new Promise<{ readonly status: number; readonly type: string; readonly text: string }>((resolve, reject) => {
    get(url, { headers, agent: false }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        text += chunk
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"] ?? "", text }))
    }).on("error", reject)
  })

/** Checks that every demo article's featured image, if any, is served by the service on `port`. */
const imagesServed = (port: number, key: string) =>
  Effect.promise(async () => {
    for (const site of [1, 2]) {
      const list = await getOnce(`http://localhost:${port}/api/v1/sites/${site}/articles?per_page=100`, {
        authorization: `Bearer ${key}`
      })
      const { data } = JSON.parse(list.text) as {
        data: ReadonlyArray<{ id: number; featured_image_url: string | null }>
      }
      for (const { id, featured_image_url: url } of data) {
        if (url === null) continue
        assert.isTrue(url.startsWith(`http://localhost:${port}/`), `article ${id}: ${url}`)
        const image = await getOnce(url)
        assert.strictEqual(image.status, 200, `article ${id}: ${url}`)
        assert.match(image.type, /^image\//, `article ${id}: ${url}`)
      }
    }
  })
