import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import type { AccountId } from "../../src/Domain/Ids.js"
import { listenOnLoopback } from "./LoopbackServer.js"

/** A new endpoint secret as the service makes them: `whsec_` and the base64 of 32 random bytes. */
export const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`

/** One request a receiver got: its headers and body, and whether each secret it was given verifies it. */
export interface Received {
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** For each of the receiver's secrets, in order: whether `new Webhook(secret).verify(body, headers)` accepts it. */
  readonly verified: ReadonlyArray<boolean>
}

/** How a receiver answers its `n`th request (from 0); it may also never answer, or cut the connection. */
export type Answering = (n: number, req: IncomingMessage, res: ServerResponse) => void

export const answerWith =
  (status: number, body = "ok", headers: Record<string, string> = {}): Answering =>
  (_n, _req, res) => {
    res.writeHead(status, { "content-type": "text/plain", ...headers })
    res.end(body)
  }

/** Answers `first` to the first request and 200 to every other. */
export const firstThen =
  (first: Answering, then: Answering = answerWith(200)): Answering =>
  (n, req, res) =>
    (n === 0 ? first : then)(n, req, res)

/** Never answers (the request stays open until the sender gives up). */
export const neverAnswer: Answering = () => {}

const verifies = (secret: string, body: string, headers: Record<string, string>) => {
  try {
    new Webhook(secret).verify(body, headers)
    return true
  } catch {
    return false
  }
}

const headersOf = (req: IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    Object.entries(req.headers).flatMap(([name, value]) =>
      typeof value === "string" ? [[name, value]] : Array.isArray(value) ? [[name, value.join(", ")]] : []
    )
  )

/**
 * A webhook receiver of the test's own: an HTTP server on 127.0.0.1 (a free port) that reads each request whole,
 * verifies it with the Standard Webhooks library under each of `secrets`, keeps it, then answers as `answering`
 * says. Closed, with every connection, when the scope closes.
 */
export const receiver = (secrets: ReadonlyArray<string>, answering: Answering = answerWith(200)) =>
  Effect.gen(function* () {
    const received: Array<Received> = []
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8")
        const headers = headersOf(req)
        const n = received.length
        received.push({ headers, body, verified: secrets.map((secret) => verifies(secret, body, headers)) })
        answering(n, req, res)
      })
    })
    const port = yield* listenOnLoopback(server)
    return { url: `http://127.0.0.1:${port}/hooks`, port, received }
  })

export interface EndpointOptions {
  readonly secret: string
  readonly events?: ReadonlyArray<string>
  readonly enabled?: boolean
}

/** An endpoint of `accountId` for `url`, written straight into `webhook_endpoints`: its id. */
export const insertEndpoint = (accountId: AccountId, url: string, options: EndpointOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ readonly id: number }>`insert into webhook_endpoints
        (account_id, url, events, secret, enabled)
      values (${accountId}, ${url}, string_to_array(${(options.events ?? ["article.changed"]).join(",")}, ','), ${options.secret}, ${options.enabled ?? true})
      returning id`.pipe(Effect.orDie)
    return Number(row!.id)
  })

/** An endpoint as `insertEndpoint` makes it, disabled when the scope closes so that its retries stop with the test. */
export const endpoint = (accountId: AccountId, url: string, options: EndpointOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const id = yield* insertEndpoint(accountId, url, options)
    yield* Effect.addFinalizer(() =>
      sql`update webhook_endpoints set enabled = false where id = ${id}`.pipe(Effect.ignore)
    )
    return id
  })

export interface AttemptRow {
  readonly delivery_id: number
  readonly status: number | null
  readonly duration_ms: number
  readonly response: string | null
  readonly response_bytes: number | null
  readonly error: string | null
}

/** The attempts recorded for an endpoint, oldest first. */
export const attemptsOf = (endpointId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<AttemptRow>`select delivery_id, status, duration_ms, response,
        octet_length(response) as response_bytes, error
      from webhook_attempts where endpoint_id = ${endpointId} order by id`.pipe(Effect.orDie)
    return rows.map((row) => ({
      ...row,
      delivery_id: Number(row.delivery_id),
      response_bytes: row.response_bytes === null ? null : Number(row.response_bytes)
    }))
  })

export interface DeliveryRow {
  readonly id: number
  readonly message_id: string
  readonly state: string
  readonly attempts: number
}

/** The deliveries made to an endpoint, oldest first. */
export const deliveriesOf = (endpointId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<DeliveryRow>`select id, message_id, state, attempts from webhook_deliveries
      where endpoint_id = ${endpointId} order by id`.pipe(Effect.orDie)
    return rows.map((row) => ({ ...row, id: Number(row.id) }))
  })

/** An endpoint's state: enabled, why the service disabled it, since when it fails. */
export const endpointState = (endpointId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{
      readonly enabled: boolean
      readonly disabled_reason: string | null
      readonly failing_since: Date | null
    }>`select enabled, disabled_reason, failing_since from webhook_endpoints where id = ${endpointId}`.pipe(
      Effect.orDie
    )
    return row!
  })

/** The delivery jobs queued for a delivery's attempt `attempt` or later (the retries, for attempt 1). */
export const retryJobsOf = (deliveryId: number, attempt = 1) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ readonly n: number }>`select count(*)::int as n from pgboss.job
      where name = 'webhook-delivery' and (data->>'delivery')::bigint = ${deliveryId}
        and (data->>'attempt')::int >= ${attempt}`.pipe(Effect.orDie)
    return Number(row!.n)
  })
