import { Cause, Effect, FiberId, FiberRef, HashMap, HashSet, Layer, Logger, Option } from "effect"
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

const annotation = (annotations: HashMap.HashMap<string, unknown>, key: string) =>
  Option.getOrElse(HashMap.get(annotations, key), () => "")

/**
 * One short line for a person at a terminal: the time and, for an answered request, its method, address and
 * status (a tool call's too, marked so); for anything else, the level and the message (and the cause, if any).
 */
export const shortLines = Logger.make(({ annotations, cause, date, logLevel, message }) => {
  const time = date.toISOString().slice(11, 19)
  const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
  if (text === "Sent HTTP response" || text === "Answered in process") {
    const request = `${annotation(annotations, "http.method")} ${annotation(annotations, "http.url")}`
    const tool = text === "Answered in process" ? " (tool call)" : ""
    return `${time} ${request} ${annotation(annotations, "http.status")}${tool}`
  }
  const line = `${time} ${logLevel.label} ${text}`
  return Cause.isEmpty(cause) ? line : `${line}\n${Cause.pretty(cause)}`
})

/** The format of the log lines: LOG_FORMAT, else `short` on a terminal and `json` anywhere else. */
export const logFormatOf = (setting: Option.Option<"json" | "short" | "pretty">, terminal: boolean) =>
  Option.getOrElse(setting, () => (terminal ? ("short" as const) : ("json" as const)))

/**
 * From here on, log lines go to `target` in the format LOG_FORMAT names (`logFormatOf`): one JSON object a line
 * (for log collectors), `short` for a person at a terminal, or `pretty` (every field, in colour on a terminal unless
 * NO_COLOR is set). It is the only logger
 * (besides the tracer's, which only adds to spans), so that no line is written twice in two formats.
 */
export const LogsTo = (target: "stdout" | "stderr") =>
  Layer.unwrapEffect(
    // A LOG_FORMAT or NO_COLOR that does not read is reported by whoever reads OutputConfig for itself (`cbs`
    // reports it as its error); the log lines meanwhile stay JSON.
    Effect.map(
      Effect.orElseSucceed(OutputConfig, () => ({ logFormat: Option.some("json" as const), noColor: false })),
      (config) => {
        const tty = (target === "stdout" ? process.stdout : process.stderr).isTTY === true
        const format = logFormatOf(config.logFormat, tty)
        const toConsole = target === "stdout" ? Logger.withConsoleLog : Logger.withConsoleError
        const logger =
          format === "json"
            ? toConsole(jsonLines)
            : format === "short"
              ? toConsole(shortLines)
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
