import { readdirSync, readFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

/**
 * A test file says what kind of test it is in a `// @tags:` line near its top: `unit` (no database, no server: runs
 * in seconds), `engine` (depends on the database engine: locking, concurrency, counts, the data directory, start-up)
 * and `runtime` (depends on the Node.js runtime: raw HTTP and sockets, streams, multipart, subprocesses, MCP). `TEST_TAGS=engine,runtime` runs
 * only the files with one of those tags (CI runs every file on its primary target, then each tagged subset on the
 * other targets); without it every file runs.
 */
const tagsOf = (file: string): ReadonlyArray<string> => {
  const line = /^\/\/ @tags:(.*)$/m.exec(readFileSync(file, "utf8").slice(0, 4096))
  return line === null ? [] : line[1]!.split(/[\s,]+/).filter((tag) => tag !== "")
}

const wanted = (process.env["TEST_TAGS"] ?? "").split(/[\s,]+/).filter((tag) => tag !== "")

const include =
  wanted.length === 0
    ? ["test/**/*.test.ts"]
    : readdirSync("test")
        .filter((name) => name.endsWith(".test.ts"))
        .map((name) => `test/${name}`)
        .filter((file) => tagsOf(file).some((tag) => wanted.includes(tag)))

/**
 * Most of the suite waits: on sockets, on the database server, on `cbs` subprocesses and on Chromium. Two workers
 * per core keep the cores busy while files wait; TEST_WORKERS overrides it.
 */
const workers = Number(process.env["TEST_WORKERS"] ?? "") || Math.max(2, availableParallelism() * 2)

export default defineConfig({
  test: {
    include,
    globalSetup: ["test/support/globalSetup.ts"],
    // Deadlines for a test that hangs, not bounds on how fast one runs: far above what any test takes on a loaded machine.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: workers,
    minWorkers: 1
  }
})
