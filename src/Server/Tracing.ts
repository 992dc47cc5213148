import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { FetchHttpClient } from "@effect/platform"
import { Duration, Effect, Layer, Option } from "effect"
import { TracingConfig, tracesEndpoint } from "../Config.js"

/**
 * Tracing, off unless an OTLP collector is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`, or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`): then every request, service call and SQL statement is a span, sent to the
 * collector over OTLP/HTTP (JSON) every `OTEL_BSP_SCHEDULE_DELAY` ms, under `OTEL_SERVICE_NAME`. Off, no span is
 * made at all: a request's span, with an attribute per header, costs about a twentieth of a list request's CPU.
 */
export const TracingLive = Layer.unwrapEffect(
  Effect.map(TracingConfig, (config) =>
    Option.match(tracesEndpoint(config), {
      onNone: () => Layer.setTracerEnabled(false),
      onSome: (url) =>
        OtlpTracer.layer({
          url,
          resource: { serviceName: config.serviceName },
          exportInterval: Duration.millis(config.exportDelayMs)
        }).pipe(Layer.provide([FetchHttpClient.layer, OtlpSerialization.layerJson]))
    })
  )
)
