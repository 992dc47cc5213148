// Start-up benchmark of the compiled `cbs` (bin/cbs.js → dist/), whole processes as a person or a script starts
// them, each figure the median of several runs:
//   - `cbs --help`, and `cbs key create` on PostgreSQL and on the embedded database (target ≤ 1 s wall);
//   - every `cbs` command as the README runs it (`node bin/cbs.js …`) on the embedded database beside a running
//     `cbs serve` (target ≤ 1 s wall), and `key create` run as `npx cbs …` and `npm run cbs -- …` beside them;
//   - the first start of `cbs serve` on a new embedded database with the demo data, to its first answer
//     (target ≤ 6 s), with what it printed while it worked;
//   - a later (warm) start on the embedded database to its first answer (target ≤ 2 s), and on PostgreSQL;
//   - the server's resident memory on PostgreSQL after answering a few hundred requests (target ≤ 200 MiB).
// "First answer" is the first 200 from GET /readyz, which needs the database. Wall times depend on how busy the
// machine is, so the load average is printed before and after, and the CPU time each process used beside them.
// Run: npm run bench:start   (DATABASE_URL: an admin connection; default postgres://postgres@127.0.0.1:5432/postgres;
// BENCH_RUNS: runs per figure, default 5)
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { loadAverage } from "./LoadAverage.js"
import { adminUrl, databaseUrl, freePort, stopChild, withClient } from "./Support.js"

const RUNS = Number(process.env["BENCH_RUNS"] ?? 5)
const root = fileURLToPath(new URL("..", import.meta.url))
const database = `cbs_bench_start_${process.pid}`
const benchUrl = databaseUrl(adminUrl, database)
const workDir = mkdtempSync(path.join(os.tmpdir(), "cbs-bench-start-"))
const timeCommand = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined
const running = new Set<ChildProcess>()

const admin = (query: string) => withClient(adminUrl, async (client) => void (await client.query(query)))

/** The environment of a `cbs` on PostgreSQL (`url`) or, without it, on the embedded database in `dataDir`. */
const envFor = (target: { readonly url?: string; readonly dataDir: string }, extra: Record<string, string> = {}) => {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: target.dataDir, HOST: "127.0.0.1", ...extra }
  delete env["DATABASE_URL"]
  delete env["LOG_FORMAT"]
  if (target.url !== undefined) env["DATABASE_URL"] = target.url
  return env
}

interface Timed {
  readonly wallMs: number
  readonly cpuMs: number | undefined
  readonly stdout: string
}

/** How `cbs` is started: as the README does (`node bin/cbs.js`), or through npm. */
const runners = {
  node: [process.execPath, "bin/cbs.js"],
  npx: ["npx", "--no-install", "cbs"],
  "npm run": ["npm", "run", "--silent", "cbs", "--"]
} as const

/**
 * Runs `cbs …args` to its end: wall time, CPU time (user + system of it and its children, when /usr/bin/time is
 * there) and stdout. `input` is its standard input.
 */
const timeCbs = (
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  options: { readonly input?: string; readonly runner?: keyof typeof runners } = {}
) =>
  new Promise<Timed>((resolve, reject) => {
    const [program, ...prefix] = runners[options.runner ?? "node"]
    const command = timeCommand ?? program
    const argv = [...(timeCommand ? ["-f", "cpu %U %S", program] : []), ...prefix, ...args]
    const started = performance.now()
    const child = spawn(command, argv, { cwd: root, env, stdio: ["pipe", "pipe", "pipe"] })
    child.stdin.end(options.input ?? "")
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.once("error", reject)
    child.once("exit", (code) => {
      const wallMs = performance.now() - started
      const cpu = /^cpu ([\d.]+) ([\d.]+)$/m.exec(stderr)
      if (code !== 0) return reject(new Error(`cbs ${args.join(" ")} exited ${code}: ${stderr.trim()}`))
      resolve({ wallMs, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : undefined, stdout })
    })
  })

interface Served {
  readonly child: ChildProcess
  readonly baseUrl: string
  /** Milliseconds from the spawn to the first 200 from /readyz. */
  readonly readyMs: number
  /** CPU milliseconds (user + system) the process had used by then. */
  readonly cpuMs: number | undefined
  /** What it printed, each line with the milliseconds since the spawn. */
  readonly lines: ReadonlyArray<string>
  readonly stdout: () => string
}

/** Starts `cbs serve` and waits for its first answer (a 200 from /readyz). */
const serve = async (env: NodeJS.ProcessEnv): Promise<Served> => {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, ["bin/cbs.js", "serve", "--port", String(port)], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  running.add(child)
  child.once("exit", () => running.delete(child))
  const lines: Array<string> = []
  let stdout = ""
  const record = (name: string) => (chunk: Buffer) => {
    if (name === "stdout") stdout += chunk.toString()
    const at = ((performance.now() - started) / 1000).toFixed(2)
    for (const line of chunk.toString().split("\n")) if (line !== "") lines.push(`  ${at} s  ${name}  ${line}`)
  }
  child.stdout?.on("data", record("stdout"))
  child.stderr?.on("data", record("stderr"))
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`cbs serve exited ${child.exitCode}:\n${lines.join("\n")}`)
    if (Date.now() > deadline) throw new Error(`cbs serve did not answer within 120 s:\n${lines.join("\n")}`)
    try {
      const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) })
      if (response.status === 200) break
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const readyMs = performance.now() - started
  return { child, baseUrl, readyMs, cpuMs: cpuOf(child.pid!), lines, stdout: () => stdout }
}

/** Stops a child process, giving it 15 s to shut down. */
const stop = (child: ChildProcess) => stopChild(child, 15_000)

/** The CPU time a process has used so far (user + system), from /proc (Linux); undefined elsewhere. */
const cpuOf = (pid: number): number | undefined => {
  try {
    // Fields 14 and 15 (utime, stime), counted after the command name, which may hold spaces.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return undefined
  }
}

/** Resident memory now and at its peak, in MiB, from /proc (Linux). */
const memoryOf = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN)
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const rows: Array<{ figure: string; median: string; runs: string; target: string; met: string }> = []
const report = (
  figure: string,
  values: ReadonlyArray<number>,
  unit: "s" | "MiB",
  target?: number,
  note?: ReadonlyArray<number | undefined>
) => {
  const show = (n: number) => (unit === "s" ? (n / 1000).toFixed(2) : n.toFixed(0))
  const m = median(values)
  const cpu = note?.every((n) => n !== undefined) ? ` (CPU ${show(median(note as ReadonlyArray<number>))} s)` : ""
  rows.push({
    figure,
    median: `${show(m)} ${unit}${cpu}`,
    runs: values.map(show).join(" "),
    target: target === undefined ? "" : `≤ ${unit === "s" ? target / 1000 : target} ${unit}`,
    met: target === undefined ? "" : m <= target ? "yes" : "NO"
  })
  console.log(`${figure}: median ${show(m)} ${unit}${cpu}  [${values.map(show).join(", ")}]`)
}

/**
 * Every `cbs` command as the README runs it, on the embedded database while `cbs serve` runs on it (the commands
 * connect to the server), then `key create` through npx and npm run, for what npm adds.
 */
const besideServer = async (env: NodeJS.ProcessEnv) => {
  const served = await serve(env)
  try {
    const json = async (args: ReadonlyArray<string>) => JSON.parse((await timeCbs([...args, "--json"], env)).stdout)
    const { key } = (await json(["key", "create", "--account", "demo@example.com"])) as { key: string }
    const response = await fetch(`${served.baseUrl}/api/v1/articles/1`, { headers: { authorization: `Bearer ${key}` } })
    if (!response.ok) throw new Error(`GET /api/v1/articles/1 answered ${response.status}`)
    const article = ((await response.json()) as { data: { body: string } }).data
    const importFile = path.join(workDir, "import.json")
    writeFileSync(
      importFile,
      JSON.stringify({
        accounts: [
          { email: "bench-import@example.com", name: "Bench", sites: [{ website_url: "https://bench.example" }] }
        ]
      })
    )
    const revocable: Array<number> = []
    for (let i = 0; i < RUNS; i++) {
      revocable.push(((await json(["key", "create", "--account", "demo@example.com"])) as { id: number }).id)
    }
    const commands: ReadonlyArray<{
      readonly name: string
      readonly run: (i: number) => Promise<Timed>
    }> = [
      { name: "cbs --help", run: () => timeCbs(["--help"], env) },
      { name: "cbs key create", run: () => timeCbs(["key", "create", "--account", "demo@example.com"], env) },
      { name: "cbs key revoke", run: (i) => timeCbs(["key", "revoke", "--id", String(revocable[i])], env) },
      {
        name: "cbs account create",
        run: (i) =>
          timeCbs(
            ["account", "create", "--email", `bench-${i}@example.com`, "--name", "Bench", "--password-stdin"],
            env,
            {
              input: "a long bench passphrase\n"
            }
          )
      },
      {
        name: "cbs account password",
        run: (i) =>
          timeCbs(["account", "password", "--email", "demo@example.com"], env, { input: `bench passphrase ${i}\n` })
      },
      { name: "cbs import FILE", run: () => timeCbs(["import", importFile], env) },
      { name: "cbs seed --demo", run: () => timeCbs(["seed", "--demo"], env) },
      { name: "cbs audit prune", run: () => timeCbs(["audit", "prune"], env) },
      {
        name: "cbs article rewrite",
        run: (i) => {
          const file = path.join(workDir, `rewrite-${i}.html`)
          writeFileSync(file, `${article.body}<p>Benchmark rewrite ${i}.</p>`)
          return timeCbs(["article", "rewrite", "--id", "1", "--file", file, "--reason", "bench"], env)
        }
      },
      { name: "cbs migrate", run: () => timeCbs(["migrate"], env) },
      {
        name: "npx cbs key create",
        run: () => timeCbs(["key", "create", "--account", "demo@example.com"], env, { runner: "npx" })
      },
      {
        name: "npm run cbs -- key create",
        run: () => timeCbs(["key", "create", "--account", "demo@example.com"], env, { runner: "npm run" })
      }
    ]
    for (const command of commands) {
      const runs: Array<Timed> = []
      for (let i = 0; i < RUNS; i++) runs.push(await command.run(i))
      report(
        `${command.name}, embedded, beside cbs serve`,
        runs.map((t) => t.wallMs),
        "s",
        command.name.startsWith("cbs") ? 1000 : undefined,
        runs.map((t) => t.cpuMs)
      )
    }
  } finally {
    await stop(served.child)
  }
}

const main = async () => {
  console.log(`Node ${process.version}, ${os.cpus().length} cores; load average before: ${loadAverage()}`)
  execFileSync(process.execPath, ["scripts/build.js", "--if-stale"], { cwd: root, stdio: "inherit" })
  await admin(`create database ${database}`)
  const pgTarget = { url: benchUrl, dataDir: path.join(workDir, "pg-media") }
  const embeddedDirs: Array<string> = []

  // cbs --help: no database at all.
  const help: Array<Timed> = []
  for (let i = 0; i < RUNS; i++) help.push(await timeCbs(["--help"], envFor(pgTarget)))
  report(
    "cbs --help",
    help.map((t) => t.wallMs),
    "s",
    1000,
    help.map((t) => t.cpuMs)
  )

  // The first start on a new embedded database: copy of the template, the demo data, the server.
  const first: Array<number> = []
  const firstCpu: Array<number | undefined> = []
  let firstLines: ReadonlyArray<string> = []
  for (let i = 0; i < RUNS; i++) {
    const dataDir = path.join(workDir, `embedded-${i}`)
    embeddedDirs.push(dataDir)
    const served = await serve(envFor({ dataDir }))
    first.push(served.readyMs)
    firstCpu.push(served.cpuMs)
    if (i === 0) firstLines = served.lines
    await stop(served.child)
  }
  report("first start, embedded, with the demo data, to the first answer", first, "s", 6000, firstCpu)
  console.log(firstLines.filter((line) => !line.includes("{")).join("\n"))

  // Later starts on the same embedded database.
  const warm: Array<number> = []
  const warmCpu: Array<number | undefined> = []
  for (let i = 0; i < RUNS; i++) {
    const served = await serve(envFor({ dataDir: embeddedDirs[0]! }))
    warm.push(served.readyMs)
    warmCpu.push(served.cpuMs)
    await stop(served.child)
  }
  report("warm start, embedded, to the first answer", warm, "s", 2000, warmCpu)

  const embeddedKeys: Array<Timed> = []
  for (let i = 0; i < RUNS; i++) {
    embeddedKeys.push(
      await timeCbs(["key", "create", "--account", "demo@example.com"], envFor({ dataDir: embeddedDirs[0]! }))
    )
  }
  report(
    "cbs key create, embedded, no server running",
    embeddedKeys.map((t) => t.wallMs),
    "s",
    1000,
    embeddedKeys.map((t) => t.cpuMs)
  )

  await besideServer(envFor({ dataDir: embeddedDirs[0]! }))

  // PostgreSQL: the demo data once, then key create, warm starts and memory.
  const seeded = await timeCbs(["seed", "--demo", "--json"], envFor(pgTarget))
  const key = (JSON.parse(seeded.stdout) as { api_key: string }).api_key
  const pgKeys: Array<Timed> = []
  for (let i = 0; i < RUNS; i++) {
    pgKeys.push(await timeCbs(["key", "create", "--account", "demo@example.com"], envFor(pgTarget)))
  }
  report(
    "cbs key create, PostgreSQL",
    pgKeys.map((t) => t.wallMs),
    "s",
    1000,
    pgKeys.map((t) => t.cpuMs)
  )

  const pgStarts: Array<number> = []
  const pgCpu: Array<number | undefined> = []
  const rss: Array<number> = []
  const peak: Array<number> = []
  for (let i = 0; i < RUNS; i++) {
    const served = await serve(envFor(pgTarget, { REQUESTS_PER_MINUTE: "100000000", SEED_DEMO: "false" }))
    pgStarts.push(served.readyMs)
    pgCpu.push(served.cpuMs)
    // A few hundred requests over the read endpoints, so that the figure is of a server that has worked.
    const headers = { authorization: `Bearer ${key}` }
    const sites = (await (await fetch(`${served.baseUrl}/api/v1/sites`, { headers })).json()) as {
      data: ReadonlyArray<{ id: number }>
    }
    const paths = sites.data.flatMap((site) => [
      `/api/v1/sites/${site.id}/articles?per_page=100`,
      `/api/v1/sites/${site.id}/backlinks`,
      `/api/v1/sites/${site.id}/stats`
    ])
    for (let n = 0; n < 300; n++) {
      const response = await fetch(`${served.baseUrl}${paths[n % paths.length]}`, { headers })
      await response.arrayBuffer()
    }
    const memory = memoryOf(served.child.pid!)
    rss.push(memory.rss)
    peak.push(memory.peak)
    await stop(served.child)
  }
  report("warm start, PostgreSQL, to the first answer", pgStarts, "s", undefined, pgCpu)
  report("server resident memory, PostgreSQL, after 300 requests", rss, "MiB", 200)
  report("server peak resident memory, PostgreSQL", peak, "MiB")

  console.log(`\nload average after: ${loadAverage()}`)
  console.log("\n| figure | median | runs | target | met |\n| --- | --- | --- | --- | --- |")
  for (const row of rows) console.log(`| ${row.figure} | ${row.median} | ${row.runs} | ${row.target} | ${row.met} |`)
}

const cleanup = async () => {
  await Promise.all([...running].map(stop))
  rmSync(workDir, { recursive: true, force: true })
  await admin(`drop database if exists ${database} with (force)`).catch(() => undefined)
}

main()
  .then(cleanup)
  .catch(async (error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    await cleanup()
    process.exitCode = 1
  })
