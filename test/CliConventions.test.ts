// @tags: engine runtime
import { spawn, spawnSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { Accounts } from "../src/Auth/Accounts.js"
import { verifyPassword } from "../src/Auth/Passwords.js"
import { cbs, cbsStoppedAt, cbsWithInput } from "./support/Cbs.js"
import { embeddedEnv, startCbs, tempDir, waitForLine } from "./support/CbsProcess.js"
import { PATIENCE, waitUntil } from "./support/Eventually.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

const root = fileURLToPath(new URL("..", import.meta.url))

let counter = 0
const newEmail = () => `conventions${++counter}@example.com`

/** An import file of one account with `articles` articles (about 1 KB each) on one website. */
const importFile = (email: string, articles: number) =>
  JSON.stringify({
    accounts: [
      {
        email,
        name: "Bulk Ltd",
        sites: [
          {
            website_url: `https://${email.replace(/\W/g, "")}.example.com`,
            articles: Array.from({ length: articles }, (_, i) => ({
              title: `Article ${i}`,
              url: `https://bulk.example.com/${email}/${i}`,
              body: `<p>${"Turn the water off first. ".repeat(40)}<a data-service-protected="backlink" href="https://partner.example/${i}">Partner</a></p>`
            }))
          }
        ]
      }
    ]
  })

const usersWith = (email: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`select id, password_hash from users where email = ${email}`)

const TestLive = Accounts.Default.pipe(Layer.provideMerge(TestDatabaseLive), Layer.merge(NodeContext.layer))

layer(TestLive)("cbs conventions, in process", (it) => {
  describe("exit status", () => {
    it.effect("a usage mistake exits 2 with one cbs: line: a missing option, a bad id, an unknown command", () =>
      Effect.gen(function* () {
        for (const args of [
          ["key", "create"],
          ["key", "revoke", "--id", "abc"],
          ["kee", "create"],
          ["key", "create", "--account", "a@example.com", "--bogus"],
          [],
          ["seed"],
          ["account", "create", "--email", "not-an-address", "--name", "X"]
        ]) {
          const result = yield* cbs(...args)
          assert.strictEqual(result.code, 2, `cbs ${args.join(" ")}: ${result.stderr}`)
          assert.match(result.stderr, /^cbs: \S[^\n]*$/, `cbs ${args.join(" ")}`)
          assert.strictEqual(result.stdout, "")
        }
        const revoke = yield* cbs("key", "revoke", "--id", "abc")
        assert.strictEqual(revoke.stderr, "cbs: --id must be a positive whole number")
      })
    )

    it.effect("a failure exits 1 with one cbs: line", () =>
      Effect.gen(function* () {
        const result = yield* cbs("key", "create", "--account", "nobody@example.com")
        assert.strictEqual(result.code, 1)
        assert.strictEqual(result.stderr, "cbs: no account has a user with e-mail nobody@example.com")
      })
    )
  })

  describe("--json", () => {
    it.effect("every command prints its result as one JSON object", () =>
      Effect.gen(function* () {
        const email = newEmail()
        const account = yield* cbs("account", "create", "--email", email, "--name", "Json Ltd", "--json")
        assert.strictEqual(account.code, 0, account.stderr)
        const created = JSON.parse(account.stdout)
        assert.strictEqual(created.email, email)
        assert.isNumber(created.account_id)

        const key = JSON.parse((yield* cbs("key", "create", "--account", email, "--json")).stdout)
        assert.match(key.key, /^cbs_/)
        assert.strictEqual(key.account_id, created.account_id)
        const revoked = JSON.parse((yield* cbs("key", "revoke", "--id", String(key.id), "--json")).stdout)
        assert.deepStrictEqual(revoked, { id: key.id, prefix: key.prefix, revoked: true })

        const migrated = JSON.parse((yield* cbs("migrate", "--json")).stdout)
        assert.deepStrictEqual(migrated.applied, [])
        assert.match(migrated.latest, /^\d{4}_/)

        const pruned = JSON.parse((yield* cbs("audit", "prune", "--json")).stdout)
        assert.strictEqual(pruned.retention_days, 90)

        const other = newEmail()
        const imported = yield* cbsWithInput(importFile(other, 2), "import", "-", "--json")
        assert.strictEqual(imported.code, 0, imported.stderr)
        const summary = JSON.parse(imported.stdout)
        assert.deepStrictEqual(summary.articles, { created: 2, updated: 0, unchanged: 0 })
        assert.strictEqual(summary.file, "-")

        const seeded = JSON.parse((yield* cbs("seed", "--demo", "--json")).stdout)
        assert.strictEqual(seeded.email, "demo@example.com")
        assert.match(seeded.api_key, /^cbs_/)
      })
    )
  })

  describe("passwords off the command line", () => {
    /** `cbs account create … --password-stdin`, with `password` as the first line of standard input. */
    const createWithStdin = (password: string, email: string, name: string, ...more: ReadonlyArray<string>) =>
      cbsWithInput(`${password}\n`, "account", "create", "--email", email, "--name", name, ...more, "--password-stdin")

    it.effect("account create --password-stdin takes the first line of standard input", () =>
      Effect.gen(function* () {
        const email = newEmail()
        const result = yield* createWithStdin("a long passphrase", email, "Stdin Ltd")
        assert.strictEqual(result.code, 0, result.stderr)
        const [user] = yield* usersWith(email)
        assert.isTrue(yield* verifyPassword("a long passphrase", user!["password_hash"] as string))
      })
    )

    it.effect("account create takes the password from CBS_PASSWORD", () =>
      Effect.gen(function* () {
        const email = newEmail()
        const result = yield* cbs("account", "create", "--email", email, "--name", "Env Ltd").pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["CBS_PASSWORD", "from the environment"]])))
        )
        assert.strictEqual(result.code, 0, result.stderr)
        const [user] = yield* usersWith(email)
        assert.isTrue(yield* verifyPassword("from the environment", user!["password_hash"] as string))
      })
    )

    it.effect("account password sets the password from standard input and ends the user's browser sessions", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const email = newEmail()
        yield* createWithStdin("the first passphrase", email, "Reset Ltd")
        const [user] = yield* usersWith(email)
        yield* sql`insert into web_sessions (id_hash, user_id, created_at, expires_at)
          values (${new Uint8Array(32).fill(7)}, ${user!["id"]}, now(), now() + interval '1 day')`
        const result = yield* cbsWithInput(
          "a forgotten one, reset\n",
          "account",
          "password",
          "--email",
          email.toUpperCase()
        )
        assert.strictEqual(result.code, 0, result.stderr)
        assert.strictEqual(result.stdout, `Password set for ${email}; their browser sessions were ended.`)
        const [after] = yield* usersWith(email)
        assert.isTrue(yield* verifyPassword("a forgotten one, reset", after!["password_hash"] as string))
        const [sessions] = yield* sql<{
          n: number
        }>`select count(*)::int as n from web_sessions where user_id = ${user!["id"]}`
        assert.strictEqual(sessions!.n, 0)

        const short = yield* cbsWithInput("short\n", "account", "password", "--email", email)
        assert.strictEqual(short.code, 2)
        assert.strictEqual(short.stderr, "cbs: the password must be at least 8 characters")
        // Sign-in takes no password over 1024 characters, so none is set that could not sign in.
        const long = yield* cbsWithInput(`${"x".repeat(1025)}\n`, "account", "password", "--email", email)
        assert.strictEqual(long.code, 2)
        assert.strictEqual(long.stderr, "cbs: the password must be at most 1024 characters")
        const empty = yield* cbsWithInput("", "account", "password", "--email", email)
        assert.strictEqual(empty.code, 2)
        assert.strictEqual(empty.stderr, "cbs: standard input holds no password")
        const unknown = yield* cbsWithInput("a long passphrase\n", "account", "password", "--email", newEmail())
        assert.strictEqual(unknown.code, 1)
        assert.match(unknown.stderr, /^cbs: no user has the e-mail /)
        const [unchanged] = yield* usersWith(email)
        assert.strictEqual(unchanged!["password_hash"], after!["password_hash"])
      })
    )

    it.effect("--password and --password-stdin together are a usage mistake, and nothing is created", () =>
      Effect.gen(function* () {
        const email = newEmail()
        const result = yield* createWithStdin(
          "a long passphrase",
          email,
          "Both Ltd",
          "--password",
          "another passphrase"
        )
        assert.strictEqual(result.code, 2)
        assert.strictEqual(result.stderr, "cbs: give the password with --password or --password-stdin, not both")
        assert.strictEqual((yield* usersWith(email)).length, 0)
      })
    )
  })

  it.effect("import - reads the file from standard input", () =>
    Effect.gen(function* () {
      const email = newEmail()
      const result = yield* cbsWithInput(importFile(email, 3), "import", "-")
      assert.strictEqual(result.code, 0, result.stderr)
      assert.match(result.stdout, /^Imported standard input:$/m)
      assert.match(result.stdout, /articles\s+3 created, 0 updated, 0 unchanged/)
      assert.strictEqual((yield* usersWith(email)).length, 1)
    })
  )

  it.scoped(
    "import prints a line per 5 % when not on a terminal, and Ctrl-C while it writes exits 130 saying nothing was imported",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("cbs-import-test-")
        const file = join(dir, "bulk.json")
        const email = newEmail()
        writeFileSync(file, importFile(email, 3000))
        // Stopped once it is writing, in the middle of its transaction.
        const stopped = yield* cbsStoppedAt(/records written\)$/, "import", file)
        assert.isTrue(stopped.reached, stopped.stderr)
        assert.strictEqual(stopped.code, 130, stopped.stderr)
        const lines = stopped.stderr.split("\n")
        assert.match(lines[0]!, /^Importing .*bulk\.json: 0 % \(checking the file\)$/)
        assert.strictEqual(lines.at(-1), "cbs: interrupted: nothing was imported")
        for (const line of lines.slice(0, -1)) assert.match(line, /^Importing .*: \d+ % \(/)
        assert.isAbove(lines.length, 2)
        assert.lengthOf(yield* usersWith(email), 0)

        // Run to its end, it says how far it is at every 5 %.
        const done = yield* cbs("import", file)
        assert.strictEqual(done.code, 0, done.stderr)
        const percents = done.stderr.split("\n").map((line) => Number(/: (\d+) % /.exec(line)?.[1]))
        // A step of the import may pass more than one mark; each line is a new one.
        assert.strictEqual(percents[0], 0)
        assert.strictEqual(percents.at(-1), 100)
        for (const [i, percent] of percents.entries()) {
          assert.strictEqual(percent % 5, 0)
          if (i > 0) assert.isAbove(percent, percents[i - 1]!)
        }
        assert.isAtLeast(percents.length, 10)
        assert.match(done.stdout, /articles\s+3000 created/)
      }),
    240_000
  )

  it.effect("import summary columns stay in line with five-digit counts", () =>
    Effect.gen(function* () {
      const { summaryLines } = yield* Effect.promise(() => import("../src/Cli/Run/Import.js"))
      const lines = summaryLines({
        accounts: { created: 1, updated: 0, unchanged: 0 },
        sites: { created: 4, updated: 0, unchanged: 0 },
        articles: { created: 20000, updated: 12, unchanged: 0 },
        backlinks: { created: 1000, updated: 0, unchanged: 31000 }
      })
      const at = (needle: string) => lines.map((line) => line.indexOf(needle))
      for (const needle of [" created,", " updated,", " unchanged"]) {
        assert.strictEqual(new Set(at(needle)).size, 1, `${needle} in:\n${lines.join("\n")}`)
      }
    })
  )
})

// --- The real program, `node bin/cbs.js …`, as a person or a script runs it --------------------------------------

const run = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) =>
  spawnSync(process.execPath, [join(root, "bin/cbs.js"), ...args], { cwd: root, env, encoding: "utf8" })

describe("cbs as a process", () => {
  it.scoped("help carries no colour codes into a pipe or with NO_COLOR, and its usage lines read cbs …", () =>
    Effect.gen(function* () {
      const dataDir = join(yield* tempDir("cbs-help-test-"), "data")
      for (const extra of [{}, { NO_COLOR: "1" }]) {
        const help = run(["key", "create", "--help"], embeddedEnv(dataDir, extra))
        assert.strictEqual(help.status, 0, help.stderr)
        assert.notInclude(help.stdout, "\u001b[")
        assert.match(help.stdout, /^cbs key create --account E \[--name N\] \[--admin\] \[--read-only\] \[--json\]$/m)
        assert.notMatch(help.stdout, /^\$ /m)
      }
      const usage = run(["key", "revoke", "--id", "x"], embeddedEnv(dataDir))
      assert.strictEqual(usage.status, 2)
      assert.strictEqual(usage.stderr, "cbs: --id must be a positive whole number\n")
    })
  )

  it.scoped("cbs --help lists the commands first, and the options every command takes after them, one line each", () =>
    Effect.gen(function* () {
      const dataDir = join(yield* tempDir("cbs-help-test-"), "data")
      const help = run(["--help"], embeddedEnv(dataDir))
      assert.strictEqual(help.status, 0, help.stderr)
      const lines = help.stdout.split("\n")
      const commands = lines.indexOf("COMMANDS")
      const options = lines.indexOf("OPTIONS OF EVERY COMMAND")
      assert.isAbove(commands, 0, help.stdout)
      assert.isAbove(options, commands, help.stdout)
      assert.isBelow(commands, 15, "the commands come right after the description")
      assert.notInclude(lines, "OPTIONS")
      for (const command of [
        "serve",
        "account create",
        "account password",
        "key create",
        "import",
        "article rewrite"
      ]) {
        assert.isTrue(
          lines.slice(commands, options).some((line) => line.startsWith(`  - ${command} `)),
          `${command} in:\n${help.stdout}`
        )
      }
      const optionLines = lines.slice(options + 2).filter((line) => line.trim() !== "")
      assert.deepStrictEqual(
        optionLines.map((line) => line.trim().split(/\s+/)[0]),
        ["--completions", "--log-level", "(-h,", "--wizard", "--version"]
      )
      assert.notInclude(help.stdout, "This setting is optional.")
    })
  )

  it.scoped("Ctrl-C (SIGINT) stops a command with exit status 130 and no stack trace", () =>
    Effect.gen(function* () {
      const dataDir = join(yield* tempDir("cbs-sigint-test-"), "data")
      // `import -` with standard input left open: the command cannot end before its input does.
      const child = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, [join(root, "bin/cbs.js"), "import", "-"], {
            cwd: root,
            env: embeddedEnv(dataDir),
            stdio: ["pipe", "pipe", "pipe"]
          })
        ),
        (child) =>
          Effect.sync(() => (child.exitCode === null && child.signalCode === null ? child.kill("SIGKILL") : true))
      )
      let stderr = ""
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
      })
      child.stdout.resume()
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      // The first command on a new data directory says so, from inside the running program.
      yield* waitUntil(
        "cbs has started",
        Effect.sync(() => stderr.includes("Creating the embedded database") || child.exitCode !== null)
      )
      child.stdin.write('{"accounts": [')
      child.kill("SIGINT")
      const code = yield* Effect.promise(() => exited)
      assert.strictEqual(code, 130, stderr)
      assert.notMatch(stderr, /\n\s+at /, stderr)
    })
  )

  it.scoped(
    "cbs serve writes its log lines as JSON objects only, one a line, each with its request id",
    () =>
      Effect.gen(function* () {
        const dataDir = join(yield* tempDir("cbs-log-test-"), "data")
        const child = yield* startCbs(["serve", "--port", "0"], embeddedEnv(dataDir))
        yield* waitForLine(child, /^Stop with Ctrl\+C\.$/m).pipe(Effect.timeout("150 seconds"))
        const port = new URL(/listening on (http:\/\/\S+)$/m.exec(child.stdout())![1]!).port
        const key = /^API key: (\S+)$/m.exec(child.stdout())![1]!
        for (const path of ["/api/v1/sites", "/api/v1/sites/999999", "/healthz"]) {
          yield* Effect.promise(() =>
            fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}` } })
          )
        }
        // The whole line: a line is written in one piece, but may be read in two.
        yield* waitForLine(child, /"http.url":"\/healthz"[^\n]*\n/).pipe(Effect.timeout(PATIENCE))
        const logLines = child.stdout().split("Stop with Ctrl+C.\n")[1]!.trimEnd().split("\n")
        assert.isAtLeast(logLines.length, 3)
        for (const line of logLines) {
          const parsed = JSON.parse(line)
          assert.isString(parsed.annotations.request_id, line)
        }
        assert.notInclude(child.stdout(), "\u001b[")
      }),
    180_000
  )
})
