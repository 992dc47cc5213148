// @tags: engine runtime
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { layerEmbedded } from "../src/Sql/Database.js"
import { lockDataDir, lockFileName } from "../src/Sql/DataDirLock.js"
import { embeddedEnv, freePort, runCbsProcess, serveReady, tempDir } from "./support/CbsProcess.js"
import { PATIENCE } from "./support/Eventually.js"

/** The pid of a process that has already ended. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!

/** A process that runs until the scope closes. */
const livingProcess = Effect.acquireRelease(
  Effect.sync(() => spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" })),
  (child) => Effect.sync(() => child.kill("SIGKILL"))
)

const writeLock = (dataDir: string, holder: object) => {
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(join(dataDir, lockFileName), JSON.stringify(holder))
}

const readLock = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, lockFileName), "utf8"))

/** A data directory yet to be made, in a fresh temporary directory. */
const newDataDir = Effect.map(tempDir("cbs-lock-test-"), (dir) => join(dir, "data"))

const lock = (dataDir: string, command: string) => lockDataDir(dataDir, command).pipe(Effect.provide(NodeContext.layer))

describe("the embedded database's lock", () => {
  for (const { name, command, left } of [
    {
      name: "is taken in an empty directory, holds this process's pid and command, and is removed after",
      command: "import",
      left: undefined
    },
    { name: "a lock left by a process that no longer runs is taken over", command: "key", left: "serve" }
  ]) {
    it.scoped(name, () =>
      Effect.gen(function* () {
        const dataDir = yield* newDataDir
        if (left !== undefined) writeLock(dataDir, { pid: deadPid(), command: left })
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* lock(dataDir, command)
            assert.deepInclude(readLock(dataDir), { pid: process.pid, command })
          })
        )
        assert.isFalse(existsSync(join(dataDir, lockFileName)))
      })
    )
  }

  it.scoped("a lock held by a running process refuses, naming the command and pid, and is left as it was", () =>
    Effect.gen(function* () {
      const dataDir = yield* newDataDir
      const holder = yield* livingProcess
      writeLock(dataDir, { pid: holder.pid, command: "serve" })
      const before = readFileSync(join(dataDir, lockFileName), "utf8")
      const error = yield* Effect.flip(Effect.scoped(lock(dataDir, "key")))
      assert.strictEqual(error._tag, "DatabaseInUse")
      assert.strictEqual(
        error.message,
        `the embedded database in ${dataDir} is in use by cbs serve (pid ${holder.pid}); stop it first, or use the web page /connection to create keys`
      )
      assert.strictEqual(readFileSync(join(dataDir, lockFileName), "utf8"), before)
    })
  )

  it.scoped.skipIf(!existsSync("/proc/self/cmdline"))(
    "a lock whose pid now runs another command line (the pid was reused) is taken over",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* newDataDir
        const other = yield* livingProcess
        writeLock(dataDir, { pid: other.pid, command: "serve", cmdline: "node\u0000bin/cbs.js\u0000serve\u0000" })
        yield* Effect.scoped(lock(dataDir, "migrate"))
        assert.isFalse(existsSync(join(dataDir, lockFileName)))
      })
  )
})

// --- The real program: `cbs serve` and other `cbs` commands on one data directory ---------------------------------

const importFile = (email: string) =>
  JSON.stringify({
    accounts: [{ email, name: "Second Process Ltd", sites: [{ website_url: "https://second.example.com" }] }]
  })

/** Opens the embedded database in `dataDir` in this process (once nothing else has it) and counts what it holds. */
const countsIn = (dataDir: string, email: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ accounts: number; keys: number; strangers: number }>`
      select (select count(*)::int from accounts) as accounts, (select count(*)::int from api_keys) as keys,
        (select count(*)::int from users where email = ${email}) as strangers`
    return row!
  }).pipe(
    Effect.provide(layerEmbedded({ dataDir: join(dataDir, "pg") }).pipe(Layer.orDie)),
    Effect.orDie,
    Effect.scoped
  )

describe("one owner of the embedded database (subprocess)", () => {
  it.live(
    "while cbs serve runs, key create, import and a second serve on its data directory exit 1 with one line and write nothing",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("cbs-owner-test-")
        const dataDir = join(dir, "data")
        const port = yield* freePort
        const { served, key } = yield* serveReady(embeddedEnv(dataDir, { PORT: String(port) }))
        const pid = served.child.pid!

        const file = join(dir, "second.json")
        const stranger = "second-process@example.com"
        writeFileSync(file, importFile(stranger))
        const env = embeddedEnv(dataDir)
        const refusals = yield* Effect.all(
          [
            runCbsProcess(["key", "create", "--account", "demo@example.com"], env),
            runCbsProcess(["import", file], env),
            runCbsProcess(["serve", "--port", "0"], env, 30)
          ],
          { concurrency: "unbounded" }
        )
        const line = `cbs: the embedded database in ${dataDir} is in use by cbs serve (pid ${pid}); stop it first, or use the web page /connection to create keys`
        for (const refused of refusals) {
          assert.deepStrictEqual(
            { code: refused.code, stderr: refused.stderr.trim(), stdout: refused.stdout },
            {
              code: 1,
              stderr: line,
              stdout: ""
            }
          )
        }

        // The server still has its data and its key.
        const sites = yield* Effect.promise(() =>
          fetch(`http://127.0.0.1:${port}/api/v1/sites`, { headers: { authorization: `Bearer ${key}` } })
        )
        assert.strictEqual(sites.status, 200)
        assert.strictEqual((yield* Effect.promise(() => sites.json())).meta.total, 2)

        served.child.kill("SIGTERM")
        assert.strictEqual(yield* Effect.promise(() => served.exited).pipe(Effect.timeout(PATIENCE)), 0)
        assert.isFalse(existsSync(join(dataDir, lockFileName)), "the server removes its lock when it exits")

        // A lock left behind by a server that was killed does not block the next command.
        writeLock(dataDir, { pid: deadPid(), command: "serve" })
        const created = yield* runCbsProcess(["key", "create", "--account", "demo@example.com"], env)
        assert.strictEqual(created.code, 0, created.stderr)
        assert.match(created.stdout, /^API key: cbs_/m)
        assert.isFalse(existsSync(join(dataDir, lockFileName)))

        // One account, the server's demo key and the key just made; the refused import stored nothing.
        assert.deepStrictEqual(yield* countsIn(dataDir, stranger), { accounts: 1, keys: 2, strangers: 0 })
      }).pipe(Effect.scoped),
    240_000
  )
})
