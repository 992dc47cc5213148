// @tags: runtime
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { cbsEnv, freePort, startCbs, tempDir, waitForLine } from "./support/CbsProcess.js"
import { eventually } from "./support/Eventually.js"

/** An OTLP/HTTP collector that keeps what it is sent. */
class Collector extends Context.Tag("test/Collector")<
  Collector,
  { readonly url: string; readonly requests: Array<{ readonly path: string; readonly body: string }> }
>() {}

const CollectorLive = Layer.scoped(
  Collector,
  Effect.acquireRelease(
    Effect.async<{ url: string; requests: Array<{ path: string; body: string }>; close: () => void }>((resume) => {
      const requests: Array<{ path: string; body: string }> = []
      const server = createServer((request, response) => {
        let body = ""
        request.setEncoding("utf8")
        request.on("data", (chunk: string) => {
          body += chunk
        })
        request.on("end", () => {
          requests.push({ path: request.url ?? "", body })
          response.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, requests, close: () => server.close() }))
      })
    }),
    ({ close }) => Effect.sync(close)
  )
)

/** The names of the spans in what the collector was sent, with the service name each came under. */
const spansOf = (requests: ReadonlyArray<{ readonly path: string; readonly body: string }>) =>
  requests.flatMap(({ body }) => {
    // biome-ignore lint/suspicious/noExplicitAny: OTLP JSON is read field by field.
    const parsed = JSON.parse(body) as { resourceSpans?: ReadonlyArray<any> }
    return (parsed.resourceSpans ?? []).flatMap((resource) => {
      const service = (resource.resource?.attributes ?? []).find(
        (attribute: { key: string }) => attribute.key === "service.name"
      )?.value?.stringValue
      return (resource.scopeSpans ?? []).flatMap((scope: { spans?: ReadonlyArray<{ name: string }> }) =>
        (scope.spans ?? []).map((span) => ({ service, name: span.name }))
      )
    })
  })

layer(CollectorLive, { excludeTestServices: true })("tracing", (it) => {
  it.scoped("with OTEL_EXPORTER_OTLP_ENDPOINT set, `cbs serve` sends requests and their SQL statements as spans", () =>
    Effect.gen(function* () {
      const collector = yield* Collector
      const port = yield* freePort
      const env = yield* cbsEnv(yield* tempDir("cbs-tracing-"), {
        PORT: String(port),
        SEED_DEMO: "false",
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: "cbs-traced",
        OTEL_BSP_SCHEDULE_DELAY: "50"
      })
      const served = yield* startCbs(["serve"], env)
      yield* waitForLine(served, /listening on (\S+)/)
      // An API key that does not exist: looked up by its hash (a statement), answered 401.
      const res = yield* Effect.promise(() =>
        fetch(`http://127.0.0.1:${port}/api/v1/sites`, { headers: { "x-api-key": `cbs_${"x".repeat(43)}` } })
      )
      assert.strictEqual(res.status, 401)
      yield* Effect.promise(() => res.arrayBuffer())
      const spans = yield* eventually(
        Effect.sync(() => spansOf(collector.requests)),
        (found) =>
          found.some((span) => span.name.startsWith("http.server")) && found.some((s) => s.name === "sql.execute")
      )
      assert.isTrue(
        collector.requests.every((request) => request.path === "/v1/traces"),
        JSON.stringify(collector.requests.map((request) => request.path))
      )
      assert.isTrue(
        spans.some((span) => span.name.startsWith("http.server")),
        JSON.stringify(spans)
      )
      assert.isTrue(
        spans.some((span) => span.name === "sql.execute"),
        JSON.stringify(spans)
      )
      assert.isTrue(
        spans.every((span) => span.service === "cbs-traced"),
        JSON.stringify(spans)
      )
    })
  )
})
