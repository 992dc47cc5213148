import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

// The shell examples of README.md and docs/*.md, run as written against a server holding the demo data.
//
// Conventions the docs follow (docs/development.md says the same):
// - Every ```sh, ```bash or ```shell block is run, unless the line before its fence is `<!-- not run: why -->`
//   (a block that installs or starts something, or needs Nix, an OAuth token or files the reader brings).
// - A file's blocks run in one bash, top to bottom (a later block uses the variables of an earlier one); README.md
//   first, then docs/*.md by name, all on the same demo data: a later file sees what an earlier one changed.
// - Every `curl` command (a line starting `curl `) must be answered 2xx, unless the line before it announces its
//   status: `# → 412 precondition_failed …`; then it must be answered exactly that.
// - Any other command must succeed (the blocks run under `set -euo pipefail`).
// - `http://localhost:3000` becomes the test server's address and `API_KEY=cbs_…` its demo key; `node bin/cbs.js` runs
//   on the server's database, from any directory.

const root = fileURLToPath(new URL("../..", import.meta.url))

/** A shell block of a doc: where it is, its lines, and why it is not run (undefined: it is run). */
export interface ShellBlock {
  readonly file: string
  /** The line number (1-based) of the block's first line, after the fence. */
  readonly line: number
  readonly lines: ReadonlyArray<string>
  readonly notRun: string | undefined
}

/** The docs whose examples run, in the order they run. */
export const docFiles = (): ReadonlyArray<string> => [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`)
]

/** Every shell block of `file` (relative to the repository), run or not. */
export const shellBlocks = (file: string): ReadonlyArray<ShellBlock> => {
  const lines = readFileSync(join(root, file), "utf8").split("\n")
  const blocks: Array<ShellBlock> = []
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(\w*)/.exec(lines[i]!)
    if (fence === null) continue
    const end = lines.findIndex((line, j) => j > i && line.trim() === "```")
    const body = lines.slice(i + 1, end)
    if (["sh", "bash", "shell"].includes(fence[2]!)) {
      const marker = /^<!-- not run: (.*\S.*) -->$/.exec(lines[i - 1] ?? "")
      blocks.push({ file, line: i + 2, lines: body, notRun: marker?.[1] })
    }
    i = end
  }
  return blocks
}

/** `lines` with its curl commands checked: each preceded by where it is and the status it must be answered. */
const instrumented = (block: ShellBlock) =>
  block.lines.flatMap((line, index) => {
    if (!/^curl /.test(line)) return [line]
    const announced = /^#\s*→\s*(\d{3})\b/.exec(block.lines[index - 1] ?? "")
    return [`__at='${block.file}:${block.line + index}' __expect='${announced?.[1] ?? "2xx"}'`, line]
  })

/** Where each curl command of these blocks is, as the run reports it. */
export const curlsOf = (blocks: ReadonlyArray<ShellBlock>) =>
  blocks.flatMap((block) =>
    block.lines.flatMap((line, index) => (/^curl /.test(line) ? [`${block.file}:${block.line + index}`] : []))
  )

/**
 * Runs `blocks` in one bash in `cwd` with the environment `cbs` (the server's, so that `node bin/cbs.js` works on
 * its database), with `port` for localhost:3000 and `key` for the doc's key: its exit status,
 * and `<file>:<line> <status>` for each curl answered. A curl's answer goes to stdout, as for a pipe after the
 * command; one answered other than announced stops the run, saying so on stderr.
 */
export const runBlocks = (
  blocks: ReadonlyArray<ShellBlock>,
  env: { port: number; key: string; cwd: string; cbs: NodeJS.ProcessEnv }
) => {
  const script = blocks
    .flatMap(instrumented)
    .join("\n")
    .replaceAll("http://localhost:3000", `http://localhost:${env.port}`)
    .replace(/^API_KEY=cbs_….*$/gm, `API_KEY=${env.key}`)
    .replaceAll("node bin/cbs.js ", `node ${join(root, "bin/cbs.js")} `)
  const run = spawnSync(
    "bash",
    [
      "-c",
      `set -euo pipefail
__body=$(mktemp)
curl() {
  local status
  status=$(command curl -sS -o "$__body" -w '%{http_code}' "$@")
  echo "$__at $status" >&2
  if [[ ! $status =~ ^\${__expect//x/[0-9]}$ ]]; then echo "$__at: answered $status, not $__expect: $(head -c 2000 "$__body")" >&2; return 1; fi
  cat "$__body"
}
${script}`
    ],
    { cwd: env.cwd, env: env.cbs, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }
  )
  const answered = run.stderr.split("\n").filter((line) => /^\S+:\d+ \d{3}$/.test(line))
  return { status: run.status, answered, stderr: run.stderr }
}

/** Whether `curl` is on the PATH. */
export const hasCurl = () => spawnSync("bash", ["-c", "command -v curl"], { encoding: "utf8" }).status === 0
