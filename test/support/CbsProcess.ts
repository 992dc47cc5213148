import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { PATIENCE } from "./Eventually.js"
import { freshPostgresUrl } from "./TestDatabase.js"

// The real program, `node bin/cbs.js …`, as child processes on an embedded database in a temporary DATA_DIR.

const root = fileURLToPath(new URL("../..", import.meta.url))

/** A port that was free a moment ago (the kernel picked it for port 0), for a server that must be reached early. */
export const freePort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** A fresh directory, removed with everything in it when the scope closes. */
export const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), prefix))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** A file `name` holding `contents`, in a fresh directory removed when the scope closes: its path. */
export const tempFile = (name: string, contents: string) =>
  Effect.map(tempDir("cbs-test-"), (dir) => {
    const file = join(dir, name)
    writeFileSync(file, contents)
    return file
  })

/** The environment of a `cbs` on the embedded database in `dataDir`, with nothing inherited that would change that. */
export const embeddedEnv = (dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, HOST: "127.0.0.1", ...extra }
  for (const name of ["DATABASE_URL", "MEDIA_DIR", "PUBLIC_BASE_URL", "SEED_DEMO", "PORT"]) {
    if (!(name in extra)) delete env[name]
  }
  return env
}

/**
 * The environment of a `cbs` for a test about the program rather than about the embedded database: on the PostgreSQL
 * leg (DATABASE_URL) a fresh copy of the migrated template database, dropped with the scope; else the embedded
 * database in `dataDir`, as `embeddedEnv`.
 */
export const cbsEnv = (dataDir: string, extra: Record<string, string> = {}) =>
  Effect.map(freshPostgresUrl, (url) =>
    embeddedEnv(dataDir, url === undefined ? extra : { ...extra, DATABASE_URL: url })
  )

export interface Running {
  readonly child: ChildProcess
  /** Everything written so far. */
  readonly stdout: () => string
  readonly stderr: () => string
  /** The exit code once it has exited (null when a signal ended it). */
  readonly exited: Promise<number | null>
}

/** `cbs …args` started in the background; killed when the scope closes if it still runs. */
export const startCbs = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) =>
  Effect.acquireRelease(
    Effect.sync((): Running => {
      const child = spawn(process.execPath, [join(root, "bin/cbs.js"), ...args], {
        cwd: root,
        env,
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8")
      })
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
      })
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      return { child, stdout: () => stdout, stderr: () => stderr, exited }
    }),
    ({ child }) =>
      Effect.sync(() => (child.exitCode === null && child.signalCode === null ? child.kill("SIGKILL") : true))
  )

/**
 * `cbs serve` started on `env` (which names its PORT), once its banner is printed to the end: the running process
 * and the API key the banner shows. A first start creates the database and imports the demo data: a minute or two on
 * a loaded machine.
 */
export const serveReady = (env: NodeJS.ProcessEnv) =>
  Effect.gen(function* () {
    const served = yield* startCbs(["serve"], env)
    const key = yield* waitForLine(served, /^API key: (cbs_\S+)$/m).pipe(Effect.timeout("150 seconds"))
    yield* waitForLine(served, /^Stop with Ctrl\+C\.$/m).pipe(Effect.timeout(PATIENCE))
    return { served, key }
  })

/**
 * `cbs …args` run to its end: exit code and output. One still running after `seconds` is killed and reported with
 * `code: "still running"`, so that a command that should have stopped fails the test instead of hanging it.
 */
export const runCbsProcess = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, seconds = 60) =>
  Effect.gen(function* () {
    const running = yield* startCbs(args, env)
    const code = yield* Effect.promise(() => running.exited).pipe(
      Effect.timeoutTo({ duration: `${seconds} seconds`, onSuccess: (code) => code, onTimeout: () => "still running" })
    )
    return { code, stdout: running.stdout(), stderr: running.stderr() }
  }).pipe(Effect.scoped)

/**
 * Waits until the process has written a line matching `pattern` to stdout (its first group, else the whole match);
 * fails with the output when it exits first.
 */
export const waitForLine = (running: Running, pattern: RegExp) =>
  Effect.async<string, Error>((resume) => {
    const timer = setInterval(() => {
      const match = pattern.exec(running.stdout())
      if (match !== null) {
        clearInterval(timer)
        resume(Effect.succeed(match[1] ?? match[0]))
      } else if (running.child.exitCode !== null || running.child.signalCode !== null) {
        clearInterval(timer)
        resume(
          Effect.fail(new Error(`cbs exited (${running.child.exitCode}):\n${running.stdout()}\n${running.stderr()}`))
        )
      }
    }, 50)
    return Effect.sync(() => clearInterval(timer))
  })
