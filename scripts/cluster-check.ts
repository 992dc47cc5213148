// Several instances, proven: three `cbs serve` on one PostgreSQL database behind nginx (Debian's package), which
// spreads the requests round-robin, and checks that what must hold across instances does:
//   - the request limit (REQUESTS_PER_MINUTE) counts a credential's requests wherever they land;
//   - the daily edit limit (EDITS_PER_DAY) counts an account's changes wherever they land;
//   - the call log has a row for every call, whichever instance answered it (by X-Request-Id);
//   - an assistant's OAuth sign-in works with each step on another instance, and its token on every instance;
//   - webhook deliveries are shared by the instances and survive a `kill -9`: a receiver here (node:http, verifying
//     each delivery with the `standardwebhooks` library) gets every event of WEBHOOK_CHANGES changes at least once
//     and none more than twice, though one instance is killed while it has deliveries in flight (its abandoned runs
//     come back after their 60 s expiry, found by the queue's maintenance within 30 s more: this check takes about
//     two minutes); a fourth instance with WORKERS=off answers requests and makes no delivery.
// nginx's access log names the instance that answered each request, to show that every check crossed all of them.
// Exits 0 when every check holds, 1 otherwise. Needs nginx (apt-get install -y nginx) and PostgreSQL.
// Run: npm run cluster:check   (DATABASE_URL: an admin connection; default postgres://postgres@127.0.0.1:5432/postgres)
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { signIn } from "./OAuthSignIn.js"
import { adminUrl, databaseUrl, freePort, stopChild, withClient } from "./Support.js"
import { newSecret, startReceiver } from "./WebhookReceiver.js"

const INSTANCES = 3
const REQUESTS_PER_MINUTE = 20
const EDITS_PER_DAY = 5
/** The changes whose events the webhook check follows; the kill -9 comes after half of them. */
const WEBHOOK_CHANGES = 60
/** How long the receiver holds each answer: long enough that the instance killed has deliveries in flight. */
const RECEIVER_HOLD_MS = 1_000
/** How long every event may take to be delivered after the kill: the 60 s expiry, 30 s of maintenance, and room. */
const RECOVERY_LIMIT_MS = 180_000

const root = fileURLToPath(new URL("..", import.meta.url))
const database = `cbs_cluster_${process.pid}`
const url = databaseUrl(adminUrl, database)
const workDir = mkdtempSync(path.join(os.tmpdir(), "cbs-cluster-"))
const children: Array<{ readonly name: string; readonly child: ChildProcess; readonly log: () => string }> = []
const failures: Array<string> = []

const check = (what: string, ok: boolean, detail = "") => {
  console.log(`${ok ? "ok  " : "FAIL"}  ${what}${detail === "" ? "" : `: ${detail}`}`)
  if (!ok) failures.push(what)
}

const query = <A>(text: string, values: ReadonlyArray<unknown> = [], on = url): Promise<Array<A>> =>
  withClient(on, async (client) => (await client.query(text, [...values])).rows as Array<A>)

const nginxBinary = ["/usr/sbin/nginx", "/usr/bin/nginx"].find(existsSync)

const start = (name: string, command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => {
  let output = ""
  const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()))
  children.push({ name, child, log: () => output })
  return child
}

const waitFor = async (what: string, ready: () => Promise<boolean>, child: ChildProcess) => {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with status ${child.exitCode}`)
    if (await ready().catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${what} was not ready within 60 s`)
}

const cbs = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => {
  const result = spawnSync(process.execPath, ["bin/cbs.js", ...args], { cwd: root, env, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`cbs ${args.join(" ")} exited ${result.status}: ${result.stderr}`)
  return result.stdout
}

/**
 * The instance (upstream address) that answered each request nginx logged, by request id: the last address of the
 * line, since a request that found an instance down lists the ones it tried before the one that answered.
 */
const upstreams = (accessLog: string) => {
  const byRequestId = new Map<string, string>()
  for (const line of readFileSync(accessLog, "utf8").split("\n")) {
    const fields = line.split(" ")
    const [requestId, upstream] = [fields[0], fields[fields.length - 1]]
    if (requestId && upstream && fields.length > 1) byRequestId.set(requestId, upstream)
  }
  return byRequestId
}

/** nginx in front of the instances on `ports`, round-robin (its default), writing `accessLog`. */
const nginxConf = (workDir: string, accessLog: string, proxyPort: number, ports: ReadonlyArray<number>) =>
  `${process.getuid?.() === 0 ? "user root;\n" : ""}worker_processes 1;
daemon off;
pid ${workDir}/nginx.pid;
error_log ${workDir}/error.log warn;
events { worker_connections 256; }
http {
  client_body_temp_path ${workDir}/client_body;
  proxy_temp_path ${workDir}/proxy;
  fastcgi_temp_path ${workDir}/fastcgi;
  uwsgi_temp_path ${workDir}/uwsgi;
  scgi_temp_path ${workDir}/scgi;
  log_format upstream '$upstream_http_x_request_id $status "$request" $upstream_addr';
  access_log ${accessLog} upstream;
  upstream cbs {
${ports.map((port) => `    server 127.0.0.1:${port};`).join("\n")}
  }
  server {
    listen 127.0.0.1:${proxyPort};
    client_max_body_size 16m;
    location / {
      proxy_pass http://cbs;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
    }
  }
}
`

const main = async () => {
  if (nginxBinary === undefined) throw new Error("nginx is not installed: apt-get install -y nginx")
  execFileSync(process.execPath, ["scripts/build.js", "--if-stale"], { cwd: root, stdio: "inherit" })
  await query(`create database ${database}`, [], adminUrl)
  const proxyPort = await freePort()
  const base = `http://127.0.0.1:${proxyPort}`
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: url,
    DATA_DIR: path.join(workDir, "data"),
    PUBLIC_BASE_URL: base,
    HOST: "127.0.0.1",
    SEED_DEMO: "false",
    REQUESTS_PER_MINUTE: String(REQUESTS_PER_MINUTE),
    EDITS_PER_DAY: String(EDITS_PER_DAY)
  }

  // Deploying: the migrations once, then the instances (each would also apply any pending one at start).
  console.log(cbs(["migrate"], env).trim())
  const demo = JSON.parse(cbs(["seed", "--demo", "--json"], env)) as {
    email: string
    password: string
    api_key: string
  }
  const editKey = (JSON.parse(cbs(["key", "create", "--account", demo.email, "--json"], env)) as { key: string }).key

  /** The instances' processes by pid (the webhook receiver names each delivery's sender from them). */
  const pids = new Map<number, string>()
  const startInstance = async (name: string, port: number, on: NodeJS.ProcessEnv) => {
    const child = start(name, process.execPath, ["bin/cbs.js", "serve", "--port", String(port)], on)
    if (child.pid !== undefined) pids.set(child.pid, name)
    await waitFor(name, async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, child)
    return { name, port, child }
  }
  const ports: Array<number> = []
  for (let i = 0; i < INSTANCES; i++) ports.push(await freePort())
  let instances = []
  for (const [i, port] of ports.entries()) instances.push(await startInstance(`cbs serve #${i + 1}`, port, env))
  console.log(`${INSTANCES} instances on ports ${ports.join(", ")}`)

  // nginx in front, round-robin (its default), passing the Host the client used and the request id back.
  const accessLog = path.join(workDir, "access.log")
  chmodSync(workDir, 0o755)
  writeFileSync(path.join(workDir, "nginx.conf"), nginxConf(workDir, accessLog, proxyPort, ports))
  const nginx = start("nginx", nginxBinary, ["-p", workDir, "-c", path.join(workDir, "nginx.conf")], process.env)
  await waitFor("nginx", async () => (await fetch(`${base}/healthz`)).ok, nginx)
  console.log(`nginx on ${base}\n`)

  const api = async (target: string, key: string, init: RequestInit = {}) => {
    const response = await fetch(`${base}${target}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.body ? { "content-type": "application/json" } : {}) }
    })
    const body = await response.text()
    return { status: response.status, requestId: response.headers.get("x-request-id") ?? "", body }
  }
  const answeredBy = (requestIds: ReadonlyArray<string>) => {
    const logged = upstreams(accessLog)
    return new Set(requestIds.map((id) => logged.get(id)).filter((upstream) => upstream !== undefined))
  }

  // 1. The request limit: one key's requests, spread over the instances, counted together.
  const secondsIntoMinute = new Date().getUTCSeconds()
  if (secondsIntoMinute > 45) await new Promise((resolve) => setTimeout(resolve, (61 - secondsIntoMinute) * 1000))
  const burst = []
  for (let i = 0; i < REQUESTS_PER_MINUTE + 5; i++) burst.push(await api("/api/v1/sites", demo.api_key))
  const allowed = burst.filter((reply) => reply.status === 200).length
  const limited = burst.filter((reply) => reply.status === 429).length
  await new Promise((resolve) => setTimeout(resolve, 300))
  const burstInstances = answeredBy(burst.map((reply) => reply.requestId))
  check(
    `request limit: ${REQUESTS_PER_MINUTE} of ${burst.length} requests a minute allowed, across instances`,
    allowed === REQUESTS_PER_MINUTE && limited === 5 && burstInstances.size === INSTANCES,
    `${allowed} answered 200, ${limited} answered 429, by ${burstInstances.size} instances`
  )

  // 2. The daily edit limit: one account's changes, spread over the instances, counted together.
  const sites = JSON.parse((await api("/api/v1/sites", editKey)).body) as { data: Array<{ id: number }> }
  const articles = JSON.parse((await api(`/api/v1/sites/${sites.data[0]!.id}/articles`, editKey)).body) as {
    data: Array<{ id: number }>
  }
  const articleId = articles.data[0]!.id
  const edits = []
  for (let i = 0; i < EDITS_PER_DAY + 2; i++) {
    edits.push(
      await api(`/api/v1/articles/${articleId}`, editKey, {
        method: "PATCH",
        body: JSON.stringify({ title: `Edited through the cluster, ${i + 1}` })
      })
    )
  }
  await new Promise((resolve) => setTimeout(resolve, 300))
  const saved = edits.filter((reply) => reply.status === 200).length
  const refused = edits.filter((reply) => reply.status === 429 && reply.body.includes("edit_limit_exceeded")).length
  const editInstances = answeredBy(edits.map((reply) => reply.requestId))
  check(
    `daily edit limit: ${EDITS_PER_DAY} of ${edits.length} changes saved, across instances`,
    saved === EDITS_PER_DAY && refused === 2 && editInstances.size === INSTANCES,
    `${saved} saved, ${refused} answered 429 edit_limit_exceeded, by ${editInstances.size} instances`
  )

  // 3. The call log: a row for every call, whichever instance answered it.
  const calls = [...burst, ...edits].map((reply) => reply.requestId)
  const rows = await query<{ request_id: string }>("select request_id from audit_log where request_id = any($1)", [
    calls
  ])
  const logged = new Set(rows.map((row) => row.request_id))
  check(
    "call log: every call recorded once, whichever instance answered it",
    calls.every((id) => logged.has(id)) && rows.length === calls.length,
    `${rows.length} rows for ${calls.length} calls answered by ${answeredBy(calls).size} instances`
  )

  // 4. OAuth: the assistant's sign-in with its steps on different instances, then its token on every instance.
  const before = upstreams(accessLog).size
  const token = await signIn({ origin: base, email: demo.email, password: demo.password }, "Cluster check")
  await new Promise((resolve) => setTimeout(resolve, 300))
  const signInInstances = new Set([...upstreams(accessLog).values()].slice(before))
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "cluster-check", version: "1" } }
  })
  const mcp = []
  for (let i = 0; i < INSTANCES; i++) {
    const response = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream"
      },
      body: initialize
    })
    await response.text()
    mcp.push({ status: response.status, requestId: response.headers.get("x-request-id") ?? "" })
  }
  await new Promise((resolve) => setTimeout(resolve, 300))
  const mcpInstances = answeredBy(mcp.map((reply) => reply.requestId))
  check(
    "OAuth: sign-in steps on several instances, and the token accepted by every instance",
    signInInstances.size >= 2 && mcp.every((reply) => reply.status === 200) && mcpInstances.size === INSTANCES,
    `sign-in answered by ${signInInstances.size} instances; MCP initialize ${mcp.map((reply) => reply.status).join(", ")} from ${mcpInstances.size} instances`
  )

  // 5. Webhooks: deliveries shared by the instances, through a kill -9. The instances start again with limits that
  // let the account make WEBHOOK_CHANGES changes, and with OUTBOUND_ALLOW_LOOPBACK=true, a setting for development
  // and tests only (never in production), which lets their deliveries reach the receiver below on 127.0.0.1 over
  // http. A fourth instance runs with WORKERS=off: it answers requests, and the deliveries of its changes are made by
  // the others; the receiver traces each delivery's connection to the process that opened it.
  const webhooksStarted = Date.now()
  await Promise.all(instances.map(({ child }) => stop(child)))
  const webhookEnv = {
    ...env,
    REQUESTS_PER_MINUTE: String(10 * WEBHOOK_CHANGES),
    EDITS_PER_DAY: String(10 * WEBHOOK_CHANGES),
    OUTBOUND_ALLOW_LOOPBACK: "true"
  }
  const offName = "cbs serve #4 (WORKERS=off)"
  const offPort = await freePort()
  const [restarted, off] = await Promise.all([
    Promise.all(ports.map((port, i) => startInstance(`cbs serve #${i + 1}`, port, webhookEnv))),
    startInstance(offName, offPort, { ...webhookEnv, WORKERS: "off" })
  ])
  instances = restarted
  writeFileSync(path.join(workDir, "nginx.conf"), nginxConf(workDir, accessLog, proxyPort, [...ports, offPort]))
  nginx.kill("SIGHUP")
  const offUpstream = `127.0.0.1:${off.port}`
  const rotating = async () => {
    await fetch(`${base}/healthz`).then((response) => response.text())
    return readFileSync(accessLog, "utf8").includes(` ${offUpstream}\n`)
  }
  await waitFor("nginx with the fourth instance", rotating, nginx)

  const secret = newSecret()
  const receiver = await startReceiver({ secret, holdMs: RECEIVER_HOLD_MS, owners: () => pids })
  const [subscribed] = await query<{ endpoint: string; account: string; after: string }>(
    `insert into webhook_endpoints (account_id, url, events, secret)
     select account_id, $1, $2, $3 from users where email = $4
     returning id as endpoint, account_id as account, (select coalesce(max(id), 0) from events) as after`,
    [
      receiver.url,
      ["article.changed", "article.published", "backlink.acquired", "backlink.status_changed"],
      secret,
      demo.email
    ]
  )
  const victim = instances[1]!
  let killedAt = 0
  let inFlightAtKill = 0
  const kill = () => {
    inFlightAtKill = receiver.inFlight(victim.name)
    victim.child.kill("SIGKILL")
    killedAt = Date.now()
  }
  const changes = []
  for (let i = 0; i < WEBHOOK_CHANGES; i++) {
    if (killedAt === 0 && i >= WEBHOOK_CHANGES / 2 && receiver.inFlight(victim.name) > 0) kill()
    changes.push(
      await api(`/api/v1/articles/${articleId}`, editKey, {
        method: "PATCH",
        body: JSON.stringify({ title: `Delivered to a webhook, ${i + 1}` })
      })
    )
  }
  if (killedAt === 0) {
    const deadline = Date.now() + 10_000
    while (receiver.inFlight(victim.name) === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    kill()
  }
  // The instance killed starts again (its port is nginx's again) while the others make the deliveries left.
  instances[1] = await startInstance(`${victim.name} (restarted)`, victim.port, webhookEnv)
  const expected = (
    await query<{ id: string }>("select id from events where account_id = $1 and id > $2 order by id", [
      subscribed!.account,
      subscribed!.after
    ])
  ).map((row) => `evt_${row.id}`)
  const undelivered = async () => {
    const counts = receiver.counts()
    const [row] = await query<{ deliveries: number; open: number }>(
      `select count(*)::int as deliveries, (count(*) filter (where state <> 'succeeded'))::int as open
       from webhook_deliveries where endpoint_id = $1`,
      [subscribed!.endpoint]
    )
    return { missing: expected.filter((id) => !counts.has(id)).length, deliveries: row!.deliveries, open: row!.open }
  }
  let left = await undelivered()
  while ((left.missing > 0 || left.open > 0) && Date.now() - killedAt < RECOVERY_LIMIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    left = await undelivered()
  }
  const recoverySeconds = ((Date.now() - killedAt) / 1000).toFixed(1)
  const counts = receiver.counts()
  const twice = [...counts.values()].filter((n) => n === 2).length
  const most = Math.max(0, ...counts.values())
  const unverified = receiver.received.filter((delivery) => !delivery.verified).length
  const changesSaved = changes.filter((reply) => reply.status === 200).length
  const changeInstances = answeredBy(changes.map((reply) => reply.requestId))
  check(
    `webhooks: every event delivered at least once, none more than twice, every signature verified, through a kill -9`,
    expected.length >= changesSaved &&
      changesSaved >= WEBHOOK_CHANGES - 2 &&
      left.missing === 0 &&
      left.open === 0 &&
      left.deliveries === expected.length &&
      most <= 2 &&
      unverified === 0,
    `${expected.length} events from ${changesSaved} of ${WEBHOOK_CHANGES} changes saved (by ${changeInstances.size} instances); ` +
      `${victim.name} killed with ${inFlightAtKill} ${inFlightAtKill === 1 ? "delivery" : "deliveries"} in flight; ` +
      (left.missing === 0 && left.open === 0
        ? `every event delivered ${recoverySeconds} s after the kill; `
        : `${left.missing} events not received and ${left.open} deliveries not done ${recoverySeconds} s after the kill; `) +
      `${receiver.received.length} deliveries received (${twice} of them a second time), at most ${most} of one event, ${unverified} not verified`
  )
  const bySender = new Map<string, number>()
  for (const { sender } of receiver.received)
    bySender.set(sender ?? "unknown", (bySender.get(sender ?? "unknown") ?? 0) + 1)
  const offAnswered = changes.filter((reply) => upstreams(accessLog).get(reply.requestId) === offUpstream).length
  check(
    "WORKERS=off: the instance answers requests and makes no delivery",
    offAnswered > 0 && !bySender.has(offName) && !bySender.has("unknown"),
    `${offAnswered} changes answered by it; deliveries by sender: ${[...bySender].map(([name, n]) => `${name} ${n}`).join(", ")}`
  )
  await receiver.close()
  console.log(`(the webhook check took ${((Date.now() - webhooksStarted) / 1000).toFixed(0)} s)`)

  const perInstance = new Map<string, number>()
  for (const upstream of upstreams(accessLog).values()) perInstance.set(upstream, (perInstance.get(upstream) ?? 0) + 1)
  console.log(`\nrequests per instance (nginx access log): ${[...perInstance].map(([u, n]) => `${u} ${n}`).join(", ")}`)
}

/** Stops a child process, giving it 15 s to shut down. */
const stop = (child: ChildProcess) => stopChild(child, 15_000)

const cleanup = async () => {
  await Promise.all(children.map(({ child }) => stop(child)))
  rmSync(workDir, { recursive: true, force: true })
  await query(`drop database if exists ${database} with (force)`, [], adminUrl).catch(() => undefined)
}

main()
  .then(async () => {
    await cleanup()
    if (failures.length > 0) {
      console.error(`\n${failures.length} check(s) failed`)
      process.exitCode = 1
    } else console.log("\nEvery check held across the instances.")
  })
  .catch(async (error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    for (const { name, log } of children) console.error(`--- ${name}\n${log().slice(-3000)}`)
    await cleanup()
    process.exitCode = 1
  })
