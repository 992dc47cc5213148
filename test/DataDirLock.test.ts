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
        `the embedded database in ${dataDir} is in use by cbs serve (pid ${holder.pid}); stop it first`
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

describe("a server's published address", () => {
  it.live("a running server's lock whose address does not answer makes a command fail at once, naming it", () =>
    Effect.gen(function* () {
      const dataDir = join(yield* tempDir("cbs-lock-test-"), "data")
      const holder = yield* livingProcess
      const port = yield* freePort
      writeLock(dataDir, { pid: holder.pid, command: "serve", address: { host: "127.0.0.1", port } })
      const refused = yield* runCbsProcess(["key", "create", "--account", "demo@example.com"], embeddedEnv(dataDir))
      assert.strictEqual(refused.code, 1)
      assert.match(
        refused.stderr,
        new RegExp(
          `^cbs: the embedded database in ${dataDir} is held by cbs serve \\(pid ${holder.pid}\\), which does not answer at 127\\.0\\.0\\.1:${port} .*; stop it first\n$`
        )
      )
      assert.deepInclude(readLock(dataDir), { pid: holder.pid, command: "serve" })
    }).pipe(Effect.scoped)
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

describe("cbs commands beside cbs serve on the embedded database (subprocess)", () => {
  it.live(
    "key create and import connect to the server and their work is served at once; a second serve is refused; a killed server's lock does not block",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("cbs-owner-test-")
        const dataDir = join(dir, "data")
        const port = yield* freePort
        const { served } = yield* serveReady(embeddedEnv(dataDir, { PORT: String(port) }))
        const pid = served.child.pid!

        const file = join(dir, "second.json")
        const stranger = "second-process@example.com"
        writeFileSync(file, importFile(stranger))
        const env = embeddedEnv(dataDir)
        const [created, imported, second] = yield* Effect.all(
          [
            runCbsProcess(["key", "create", "--account", "demo@example.com", "--json"], env),
            runCbsProcess(["import", file], env),
            runCbsProcess(["serve", "--port", "0"], env, 30)
          ],
          { concurrency: "unbounded" }
        )
        assert.strictEqual(created.code, 0, created.stderr)
        assert.strictEqual(imported.code, 0, imported.stderr)
        assert.deepStrictEqual(
          { code: second.code, stderr: second.stderr.trim(), stdout: second.stdout },
          {
            code: 1,
            stderr: `cbs: the embedded database in ${dataDir} is in use by cbs serve (pid ${pid}); stop it first`,
            stdout: ""
          }
        )

        // The server accepts the new key at once, and serves what the import wrote.
        const key = (JSON.parse(created.stdout) as { key: string }).key
        const sites = yield* Effect.promise(() =>
          fetch(`http://127.0.0.1:${port}/api/v1/sites`, { headers: { authorization: `Bearer ${key}` } })
        )
        assert.strictEqual(sites.status, 200)
        assert.strictEqual((yield* Effect.promise(() => sites.json())).meta.total, 2)

        // A server killed outright leaves its lock, with the address it served at: the next command finds it stale
        // (its process is gone), takes the database over and does its work.
        served.child.kill("SIGKILL")
        yield* Effect.promise(() => served.exited)
        assert.deepInclude(readLock(dataDir), { pid, command: "serve" })
        assert.property(readLock(dataDir), "address")
        const after = yield* runCbsProcess(["key", "create", "--account", "demo@example.com"], env)
        assert.strictEqual(after.code, 0, after.stderr)
        assert.match(after.stdout, /^API key: cbs_/m)
        assert.isFalse(existsSync(join(dataDir, lockFileName)))

        // The demo account and the imported one; the server's demo key and the two keys made beside it.
        assert.deepStrictEqual(yield* countsIn(dataDir, stranger), { accounts: 2, keys: 3, strangers: 1 })
      }).pipe(Effect.scoped),
    240_000
  )
})
