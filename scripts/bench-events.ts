// Events and webhook deliveries against `cbs serve` (the compiled program, its workers on) on a real PostgreSQL, with
// receivers on this machine (node:http, verifying each delivery with the `standardwebhooks` library and answering
// 204). OUTBOUND_ALLOW_LOOPBACK=true lets the deliveries reach them over http: a setting for development and tests,
// never for production. It measures:
//   - edit: the latency of an edit (a PATCH of a meta description through the API, one at a time) on an account with
//     no webhook endpoint and on one with ENDPOINTS endpoints subscribed to its article.changed events, in ROUNDS
//     alternating rounds, each round starting once the deliveries before it are done (so the account with endpoints
//     has its own deliveries running beside its edits, and the other none): median and p95 of each, and the ratio;
//   - deliveries: DELIVERIES articles imported (`cbs import`, while no instance runs workers) into an account whose
//     endpoint wants article.published, then one instance started with its workers: deliveries per second from its first delivery to its last,
//     and the instance's CPU per delivery.
// It ends with the lines `edit p50 with N endpoints / with none: R× (target ≤ 1.1×: met)` and
// `deliveries per second, one instance: N`.
// Exits 0 whatever the figures (it is a measurement), 1 when setup failed or a request or delivery failed.
// Run: npm run bench:events (builds nothing: run npm run build first if the sources changed)
//   DATABASE_URL        an admin connection; default postgres://postgres@127.0.0.1:5432/postgres
//   BENCH_EDIT_WORKERS  off: the edits go to an instance with WORKERS=off, the only one running, so that no delivery
//                       is made beside them (the cost of queuing them alone)
import type { ChildProcess } from "node:child_process"
import { writeFileSync } from "node:fs"
import http from "node:http"
import os from "node:os"
import path from "node:path"
import { performance } from "node:perf_hooks"
import { loadAverage } from "./LoadAverage.js"
import {
  adminUrl,
  benchEnv,
  cpuMs,
  quantile,
  removeScratch,
  runBench,
  runCbs,
  scratch,
  serveCbs,
  stopChild,
  withClient
} from "./Support.js"
import { newSecret, startReceiver } from "./WebhookReceiver.js"

/** The endpoints of the account whose edits are compared with those of an account without any. */
const ENDPOINTS = 5
const WARMUP = 40
const ROUNDS = 6
const PER_ROUND = 60
const DELIVERIES = 2_000
/** Whether the instance the edits go to runs workers (BENCH_EDIT_WORKERS=off: none runs them meanwhile). */
const EDIT_WORKERS = process.env["BENCH_EDIT_WORKERS"] !== "off"
const TARGET_RATIO = 1.1
/** How long the deliveries may take to be done, after a round or after the import. */
const DRAIN_LIMIT_MS = 300_000

const made = scratch("cbs_bench_events")
const { url: benchUrl, workDir } = made
const loadAtStart = loadAverage()
const children: Array<ChildProcess> = []
const env = benchEnv(benchUrl, workDir, { OUTBOUND_ALLOW_LOOPBACK: "true" })
const cbs = (args: ReadonlyArray<string>) => runCbs(args, env)

const query = <A>(text: string, values: ReadonlyArray<unknown> = []) =>
  withClient(benchUrl, async (client) => (await client.query(text, [...values])).rows as Array<A>)

const cleanup = () => removeScratch(made, children)

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })

/** One PATCH on a keep-alive connection: its status and its time to the whole answer, in milliseconds. */
const patch = (port: number, key: string, id: string, body: object) =>
  new Promise<{ status: number; ms: number }>((resolve, reject) => {
    const start = performance.now()
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "PATCH",
        path: `/api/v1/articles/${id}`,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        agent
      },
      (res) => {
        res.resume()
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - start }))
      }
    )
    req.on("error", reject)
    req.end(JSON.stringify(body))
  })

/** An account with one website, through the commands (and SQL for the website): its id and an API key. */
const account = async (name: string) => {
  const email = `${name}@bench.example`
  await cbs(["account", "create", "--email", email, "--name", name])
  const key = /API key: (\S+)/.exec(await cbs(["key", "create", "--account", email]))?.[1]
  if (key === undefined) throw new Error("no API key printed")
  const [row] = await query<{ account: string }>("select account_id as account from users where email = $1", [email])
  return { email, key, id: row!.account }
}

/** An endpoint of `accountId` at `url`, wanting `events`, signing with `secret`, as `cbs webhook create` makes one. */
const subscribe = (accountId: string, url: string, events: ReadonlyArray<string>, secret: string) =>
  query("insert into webhook_endpoints (account_id, url, events, secret) values ($1, $2, $3, $4)", [
    accountId,
    url,
    events,
    secret
  ])

/** Waits until no delivery is pending; how long that took, in ms. */
const drained = async () => {
  const start = performance.now()
  for (;;) {
    const [row] = await query<{ pending: number }>(
      "select count(*)::int as pending from webhook_deliveries where state = 'pending'"
    )
    if (row!.pending === 0) return performance.now() - start
    if (performance.now() - start > DRAIN_LIMIT_MS) throw new Error(`${row!.pending} deliveries still pending`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const ms = (n: number) => `${n.toFixed(1)} ms`

/** Starts `cbs serve` with `extra` in its environment, once it answers /readyz: the process and its port. */
const serve = (extra: NodeJS.ProcessEnv) =>
  serveCbs({ ...env, ...extra }, path.join(workDir, `serve-${children.length + 1}.log`), children)

const main = async () => {
  await withClient(adminUrl, (client) => client.query(`create database ${made.database}`))
  await cbs(["migrate"])
  const secret = newSecret()
  const receiver = await startReceiver({ secret })

  // The accounts: one without endpoints, one with ENDPOINTS, each with one article to edit; one for the import.
  const [plain, subscribed, importing] = [await account("plain"), await account("subscribed"), await account("bulk")]
  const articleOf = async (accountId: string) => {
    const [row] = await query<{ id: string }>(
      `with s as (
         insert into sites (account_id, name, website_url)
         values ($1::bigint, 'Site', 'https://site' || $1::text || '.example')
         returning id
       )
       insert into articles (site_id, title, url, status, body, word_count)
       select s.id, 'An article about boilers', 'https://site' || $1::text || '.example/boilers', 'published',
         repeat('<p>A short paragraph about boilers and radiators in winter.</p>', 30), 270 from s
       returning id`,
      [accountId]
    )
    return row!.id
  }
  const plainArticle = await articleOf(plain.id)
  const subscribedArticle = await articleOf(subscribed.id)
  for (let i = 0; i < ENDPOINTS; i++) {
    await subscribe(subscribed.id, `${receiver.url}?endpoint=${i + 1}`, ["article.changed"], secret)
  }
  await subscribe(importing.id, `${receiver.url}?endpoint=import`, ["article.published"], secret)

  // DELIVERIES articles imported while no instance runs: their deliveries wait in the queue.
  const importFile = path.join(workDir, "import.json")
  writeFileSync(
    importFile,
    JSON.stringify({
      accounts: [
        {
          email: importing.email,
          name: "bulk",
          sites: [
            {
              name: "Bulk",
              website_url: "https://bulk.example",
              articles: Array.from({ length: DELIVERIES }, (_, i) => ({
                title: `Radiators, part ${i + 1}`,
                url: `https://bulk.example/blog/${i + 1}`,
                status: "published",
                published_at: "2026-11-01T08:00:00Z",
                body: "<p>A short paragraph about boilers and radiators in winter.</p>"
              }))
            }
          ]
        }
      ]
    })
  )
  // They are queued while an instance runs with WORKERS=off (it makes none of them), which then stops.
  const queuing = await serve({ WORKERS: "off" })
  await cbs(["import", importFile])
  await stopChild(queuing.child)
  const [queued] = await query<{ n: number }>(
    "select count(*)::int as n from webhook_deliveries where state = 'pending'"
  )
  const [jobs] = await query<{ n: number }>("select count(*)::int as n from pgboss.job where name = 'webhook-delivery'")
  if (jobs!.n !== queued!.n) throw new Error(`${queued!.n} deliveries queued, but ${jobs!.n} delivery jobs`)

  // One instance, its workers on.
  const { child: server, port } = await serve({})

  // --- deliveries -----------------------------------------------------------------------------------------------
  const readyAt = Date.now()
  const cpuBefore = cpuMs(server.pid ?? 0)
  await drained()
  const cpuAfter = cpuMs(server.pid ?? 0)
  const bulk = receiver.received.filter((delivery) => delivery.verified)
  const first = Math.min(...bulk.map((delivery) => delivery.at))
  const last = Math.max(...bulk.map((delivery) => delivery.at))
  const perSecond = (bulk.length - 1) / ((last - first) / 1000)
  const cpuPerDelivery =
    cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / bulk.length
  const deliveriesLoad = loadAverage()

  // --- edit -----------------------------------------------------------------------------------------------------
  // With BENCH_EDIT_WORKERS=off the edits go to an instance that runs no workers, the only one: the deliveries are
  // queued and none is made meanwhile, which leaves the cost of queuing them in the edit's transaction.
  const editPort = EDIT_WORKERS
    ? port
    : await stopChild(server).then(async () => (await serve({ WORKERS: "off" })).port)
  let version = 0
  const edits = { plain: [] as Array<number>, subscribed: [] as Array<number> }
  let failed = 0
  const run = async (which: "plain" | "subscribed", count: number, measured: boolean) => {
    const [key, article] = which === "plain" ? [plain.key, plainArticle] : [subscribed.key, subscribedArticle]
    for (let i = 0; i < count; i++) {
      const answer = await patch(editPort, key, article, {
        meta_description: `Radiators in winter, version ${++version}`
      })
      if (answer.status !== 200) failed++
      else if (measured) edits[which].push(answer.ms)
    }
    if (EDIT_WORKERS) await drained()
  }
  await run("plain", WARMUP, false)
  await run("subscribed", WARMUP, false)
  const receivedBefore = receiver.received.length
  for (let round = 0; round < ROUNDS; round++) {
    for (const which of round % 2 === 0 ? (["plain", "subscribed"] as const) : (["subscribed", "plain"] as const)) {
      await run(which, PER_ROUND, true)
    }
  }
  const editDeliveries = receiver.received.length - receivedBefore
  const unverified = receiver.received.filter((delivery) => !delivery.verified).length
  // Without workers the edits' deliveries stay queued: only the others must be done.
  const [notDone] = await query<{ n: number }>(
    `select count(*)::int as n from webhook_deliveries where state <> 'succeeded' and (endpoint_id in (
       select id from webhook_endpoints where account_id = $1) or $2)`,
    [importing.id, EDIT_WORKERS]
  )
  await receiver.close()

  // --- report ---------------------------------------------------------------------------------------------------
  console.log(
    `${new Date().toISOString()}  Node ${process.version}  ${os.availableParallelism()} cores  load average ${loadAtStart} at the start, ${deliveriesLoad} after the deliveries, ${loadAverage()} at the end`
  )
  console.log(
    `deliveries: ${queued!.n} queued by an import (${jobs!.n} jobs) while no instance ran workers, then one instance with its workers: ` +
      `${bulk.length} delivered, the first ${((first - readyAt) / 1000).toFixed(1)} s after it was ready, the last ${((last - readyAt) / 1000).toFixed(1)} s after; ` +
      `${perSecond.toFixed(0)} per second from the first to the last; ` +
      `${cpuPerDelivery === undefined ? "?" : cpuPerDelivery.toFixed(2)} ms of the instance's CPU per delivery`
  )
  const line = (label: string, samples: ReadonlyArray<number>) =>
    console.log(
      `${label.padEnd(40)} n ${String(samples.length).padStart(5)}  p50 ${ms(quantile(samples, 0.5)).padStart(9)}  p95 ${ms(quantile(samples, 0.95)).padStart(9)}`
    )
  console.log(
    `edit: PATCH of a meta description, one at a time, ${ROUNDS} alternating rounds of ${PER_ROUND}, ${EDIT_WORKERS ? "on the instance making the deliveries" : "on an instance with WORKERS=off, none making deliveries"}`
  )
  line("no endpoint", edits.plain)
  line(
    `${ENDPOINTS} endpoints (${EDIT_WORKERS ? `${editDeliveries} deliveries` : "deliveries queued"})`,
    edits.subscribed
  )
  const ratio = quantile(edits.subscribed, 0.5) / quantile(edits.plain, 0.5)
  const ratio95 = quantile(edits.subscribed, 0.95) / quantile(edits.plain, 0.95)
  if (failed > 0) console.log(`failed edits: ${failed}`)
  if (unverified > 0 || notDone!.n > 0) console.log(`deliveries not verified: ${unverified}; not done: ${notDone!.n}`)
  console.log("")
  console.log(
    `edit p50 with ${ENDPOINTS} endpoints / with none: ${ratio.toFixed(2)}× (p95 ${ratio95.toFixed(2)}×; target ≤ ${TARGET_RATIO}×: ${ratio <= TARGET_RATIO ? "met" : "NOT MET"})`
  )
  console.log(`deliveries per second, one instance: ${perSecond.toFixed(0)}`)
  return failed === 0 && unverified === 0 && notDone!.n === 0 && bulk.length === DELIVERIES
}

runBench(main, cleanup)
