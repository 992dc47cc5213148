// Hostile and heavy writes beside other requests, against `cbs serve` (the compiled program) on a real PostgreSQL,
// with the request and edit limits raised by configuration. It measures:
//   - refusal: PUTs of about 5 MiB bodies (nested <div>, repeated <p>, repeated <a>), each refused with a 422:
//     the time from the last byte sent to the answer, and the slowest /healthz answer while each was in flight
//     (/healthz is polled every 10 ms on a connection of its own);
//   - load: one account's writes (WRITERS concurrent PUTs of bodies as large as allowed, each a new body that the
//     sanitiser has to reduce, on one article) beside another account's reads (GET of its articles on READERS
//     connections), against the same reads alone: p50 and p99 of each.
// It ends with the lines `5 MiB body refused within N ms of being received; /healthz at most M ms meanwhile` and
// `reads p99 under one account's heavy writes / alone: R×`.
// Exits 0 whatever the figures (it is a measurement), 1 when setup failed or a request failed unexpectedly.
// Run: npm run bench:load (builds nothing: run npm run build first if the sources changed)
//   DATABASE_URL        an admin connection; default postgres://postgres@127.0.0.1:5432/postgres
//   BENCH_LOAD_SECONDS  length of each measured read run, default 15
import type { ChildProcess } from "node:child_process"
import http from "node:http"
import os from "node:os"
import path from "node:path"
import { performance } from "node:perf_hooks"
import { MAX_BODY_CHARACTERS } from "../src/Html/Bounds.js"
import { loadAverage } from "./LoadAverage.js"
import {
  adminUrl,
  benchEnv,
  quantile,
  removeScratch,
  runBench,
  runCbs,
  scratch,
  serveCbs,
  withClient
} from "./Support.js"

const SECONDS = Number(process.env["BENCH_LOAD_SECONDS"] ?? "15")
const WRITERS = 40
const READERS = 4
const READ_ARTICLES = 20
const TARGET_REFUSAL_MS = 200
const TARGET_HEALTH_MS = 100
const TARGET_RATIO = 10
/** Just under the 5 MiB cap of a JSON request body, with room for `{"body":""}`. */
const HOSTILE_CHARACTERS = 5 * 1024 * 1024 - 64

const made = scratch("cbs_bench_load")
const { url: benchUrl, workDir } = made
const loadAtStart = loadAverage()
const children: Array<ChildProcess> = []
const env = benchEnv(benchUrl, workDir)
const cbs = (args: ReadonlyArray<string>) => runCbs(args, env)

const cleanup = () => removeScratch(made, children)

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })

interface Answer {
  readonly status: number
  readonly text: string
  /** From the last byte of the request written to the answer's headers, in milliseconds. */
  readonly afterSent: number
  /** From the request's start to its whole answer, in milliseconds. */
  readonly total: number
}

/** One request on the shared keep-alive agent (or on a connection of its own, with `ownAgent`). */
const request = (
  port: number,
  method: string,
  pathname: string,
  headers: Record<string, string>,
  body?: string,
  ownAgent?: http.Agent
) =>
  new Promise<Answer>((resolve, reject) => {
    const start = performance.now()
    let sent = start
    const req = http.request(
      { host: "127.0.0.1", port, method, path: pathname, headers, agent: ownAgent ?? agent },
      (res) => {
        const headersAt = performance.now()
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString(),
            afterSent: headersAt - sent,
            total: performance.now() - start
          })
        )
      }
    )
    req.on("error", reject)
    if (body === undefined) req.end()
    else req.end(body, () => (sent = performance.now()))
  })

const ms = (n: number) => `${n.toFixed(1)} ms`

/** Prose with editor wrappers and classes that the sanitiser removes, at most `length` characters; `n` varies it. */
const editorBody = (length: number, n: number) => {
  const sentence = (i: number) =>
    `Sentence ${i} of version ${n} explains how a <strong>local plumber</strong> keeps <em>pipes</em> in order.`
  let body = ""
  for (let i = 0; ; i++) {
    const part = `<div class="box"><p class="lead">${sentence(i)} ${sentence(i + 1)} <a href="https://example.org/${i}" class="more">read on</a></p></div>`
    if (body.length + part.length > length) return body
    body += part
  }
}

const main = async () => {
  await withClient(adminUrl, (client) => client.query(`create database ${made.database}`))
  await cbs(["migrate"])
  const accounts = []
  for (const name of ["heavy", "reader"]) {
    await cbs(["account", "create", "--email", `${name}@bench.example`, "--name", name])
    const key = /API key: (\S+)/.exec(await cbs(["key", "create", "--account", `${name}@bench.example`]))?.[1]
    if (key === undefined) throw new Error("no API key printed")
    accounts.push(key)
  }
  const [heavyKey, readerKey] = accounts as [string, string]
  const { heavyArticle, readerArticles } = await withClient(benchUrl, async (client) => {
    const site = async (email: string) =>
      (
        await client.query<{ id: string }>(
          `insert into sites (account_id, name, website_url)
           select account_id, 'Site', 'https://' || $1::text from users where email = $1::text returning id`,
          [email]
        )
      ).rows[0]!.id
    const article = async (siteId: string, n: number) =>
      (
        await client.query<{ id: string }>(
          `insert into articles (site_id, title, url, status, body, word_count)
           values ($1::bigint, 'Article ' || $2::text, 'https://bench.example/' || $1::text || '/' || $2::text, 'published',
                   repeat('<p>A short paragraph about boilers and radiators in winter.</p>', 30), 270) returning id`,
          [siteId, n]
        )
      ).rows[0]!.id
    const heavySite = await site("heavy@bench.example")
    const readerSite = await site("reader@bench.example")
    const readerArticles = []
    for (let n = 0; n < READ_ARTICLES; n++) readerArticles.push(await article(readerSite, n))
    return { heavyArticle: await article(heavySite, 0), readerArticles }
  })

  // Ready (/readyz): migrated and serving, as /healthz was waited for before.
  const { port } = await serveCbs(env, path.join(workDir, "serve.log"), children)

  const json = (key: string) => ({ "x-api-key": key, "content-type": "application/json" })
  let version = 0
  const put = (key: string, id: string, body: string) =>
    request(port, "PUT", `/api/v1/articles/${id}`, json(key), JSON.stringify({ body }))
  const read = (i: number) =>
    request(port, "GET", `/api/v1/articles/${readerArticles[i % READ_ARTICLES]}`, json(readerKey))

  // Warm-up: the sanitiser's workers start, the code paths are compiled, the pool's connections open.
  for (let i = 0; i < 6; i++) await put(heavyKey, heavyArticle, editorBody(MAX_BODY_CHARACTERS, ++version))
  for (let i = 0; i < 200; i++) await read(i)

  // --- refusal ------------------------------------------------------------------------------------------------
  const healthAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const hostile = {
    "nested <div>": "<div>".repeat(HOSTILE_CHARACTERS / 5),
    "repeated <p>": "<p>".repeat(HOSTILE_CHARACTERS / 3),
    "repeated <a>": "<a>".repeat(HOSTILE_CHARACTERS / 3)
  }
  const refusals: Array<{ name: string; afterSent: number; health: number; status: number }> = []
  for (const [name, body] of Object.entries(hostile)) {
    for (let round = 0; round < 3; round++) {
      let polling = true
      const healthTimes: Array<number> = []
      const poller = (async () => {
        while (polling) {
          const answer = await request(port, "GET", "/healthz", {}, undefined, healthAgent)
          healthTimes.push(answer.total)
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
      })()
      const answer = await put(heavyKey, heavyArticle, body)
      polling = false
      await poller
      refusals.push({ name, afterSent: answer.afterSent, health: Math.max(...healthTimes), status: answer.status })
    }
  }

  // --- load -----------------------------------------------------------------------------------------------------
  const readFor = async (seconds: number) => {
    const latencies: Array<number> = []
    let failed = 0
    const end = performance.now() + seconds * 1000
    await Promise.all(
      Array.from({ length: READERS }, async (_, r) => {
        for (let i = r; performance.now() < end; i += READERS) {
          const answer = await read(i)
          if (answer.status === 200) latencies.push(answer.total)
          else failed++
        }
      })
    )
    return { latencies, failed }
  }
  const alone = await readFor(SECONDS)
  let writing = true
  const writes = { ok: 0, other: new Map<number, number>(), latencies: [] as Array<number> }
  const writers = Array.from({ length: WRITERS }, async () => {
    while (writing) {
      const answer = await put(heavyKey, heavyArticle, editorBody(MAX_BODY_CHARACTERS, ++version))
      if (answer.status === 200) writes.ok++
      else writes.other.set(answer.status, (writes.other.get(answer.status) ?? 0) + 1)
      writes.latencies.push(answer.total)
    }
  })
  // The writers fill their queue first.
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  const loaded = await readFor(SECONDS)
  writing = false
  await Promise.all(writers)

  // --- report ---------------------------------------------------------------------------------------------------
  console.log(
    `${new Date().toISOString()}  Node ${process.version}  ${os.availableParallelism()} cores  load average ${loadAtStart} at the start, ${loadAverage()} at the end`
  )
  console.log(`refusal of ~5 MiB bodies (${HOSTILE_CHARACTERS} characters), 3 each:`)
  for (const r of refusals) {
    console.log(
      `  ${r.name.padEnd(14)} ${r.status}  answered ${ms(r.afterSent).padStart(9)} after the last byte sent;  /healthz at most ${ms(r.health)}`
    )
  }
  const line = (label: string, samples: ReadonlyArray<number>) =>
    console.log(
      `${label.padEnd(44)} n ${String(samples.length).padStart(6)}  p50 ${ms(quantile(samples, 0.5)).padStart(9)}  p99 ${ms(quantile(samples, 0.99)).padStart(9)}`
    )
  console.log(`load: ${READERS} connections reading another account's articles, ${SECONDS} s each`)
  line("reads alone", alone.latencies)
  line(`reads beside ${WRITERS} concurrent ${MAX_BODY_CHARACTERS}-character PUTs`, loaded.latencies)
  line(`the PUTs (${writes.ok} saved)`, writes.latencies)
  if (writes.other.size > 0) console.log(`  other answers to the PUTs: ${JSON.stringify([...writes.other])}`)
  const failed = alone.failed + loaded.failed
  if (failed > 0) console.log(`failed reads: ${failed}`)
  const slowestRefusal = Math.max(...refusals.map((r) => r.afterSent))
  const slowestHealth = Math.max(...refusals.map((r) => r.health))
  const allRefused = refusals.every((r) => r.status === 422)
  const ratio = quantile(loaded.latencies, 0.99) / quantile(alone.latencies, 0.99)
  console.log(
    `targets: refusal ≤ ${TARGET_REFUSAL_MS} ms: ${slowestRefusal <= TARGET_REFUSAL_MS && allRefused ? "met" : "NOT MET"}; /healthz ≤ ${TARGET_HEALTH_MS} ms: ${slowestHealth <= TARGET_HEALTH_MS ? "met" : "NOT MET"}; reads p99 ratio ≤ ${TARGET_RATIO}×: ${ratio <= TARGET_RATIO ? "met" : "NOT MET"}`
  )
  console.log("")
  console.log(
    `5 MiB body refused within ${slowestRefusal.toFixed(0)} ms of being received; /healthz at most ${slowestHealth.toFixed(0)} ms meanwhile`
  )
  console.log(`reads p99 under one account's heavy writes / alone: ${ratio.toFixed(2)}×`)
  return failed === 0 && allRefused && writes.other.size === 0
}

runBench(main, cleanup)
