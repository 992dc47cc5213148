import { Cause, Effect, FiberId, FiberRef, HashSet, Layer, Logger } from "effect"
import { OutputConfig } from "./Config.js"

const isPlain = (value: unknown) =>
  value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean"

/**
 * Effect's JSON logger, with a quicker way for the common line: a text message, no cause and plain annotations (the
 * access line of every request is one) are written with one `JSON.stringify`, in the same shape and order; anything
 * else goes through `Logger.jsonLogger` itself.
 */
export const jsonLines = Logger.make((options) => {
  const { annotations, cause, date, fiberId, logLevel, message, spans } = options
  const text = Array.isArray(message) && message.length === 1 ? message[0] : message
  if (!isPlain(text) || !Cause.isEmpty(cause)) return Logger.jsonLogger.log(options)
  const annotationsObject: Record<string, unknown> = {}
  for (const [key, value] of annotations) {
    if (!isPlain(value)) return Logger.jsonLogger.log(options)
    annotationsObject[key] = value
  }
  const now = date.getTime()
  const spansObject: Record<string, number> = {}
  for (const span of spans) spansObject[span.label] = now - span.startTime
  return JSON.stringify({
    message: text,
    logLevel: logLevel.label,
    timestamp: date.toISOString(),
    annotations: annotationsObject,
    spans: spansObject,
    fiberId: FiberId.threadName(fiberId)
  })
})

/**
 * From here on, log lines go to `target` in the format LOG_FORMAT names: one JSON object a line (the default, for
 * log collectors), or `pretty` for a person (in colour on a terminal, unless NO_COLOR is set). It is the only logger
 * (besides the tracer's, which only adds to spans), so that no line is written twice in two formats.
 */
export const LogsTo = (target: "stdout" | "stderr") =>
  Layer.unwrapEffect(
    // A LOG_FORMAT or NO_COLOR that does not read is reported by whoever reads OutputConfig for itself (`cbs`
    // reports it as its error); the log lines meanwhile stay JSON.
    Effect.map(
      Effect.orElseSucceed(OutputConfig, () => ({ logFormat: "json", noColor: false }) as const),
      (config) => {
        const tty = (target === "stdout" ? process.stdout : process.stderr).isTTY === true
        const logger =
          config.logFormat === "json"
            ? (target === "stdout" ? Logger.withConsoleLog : Logger.withConsoleError)(jsonLines)
            : Logger.prettyLogger({ stderr: target === "stderr", colors: tty && !config.noColor })
        return Layer.scopedDiscard(
          Effect.locallyScopedWith(FiberRef.currentLoggers, (loggers) =>
            HashSet.add(
              HashSet.filter(loggers, (other) => other === Logger.tracerLogger),
              logger
            )
          )
        )
      }
    )
  )
