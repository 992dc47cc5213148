import { Effect, FiberRef, HashSet, Layer, Logger } from "effect"
import { OutputConfig } from "./Config.js"

/**
 * From here on, log lines go to `target` in the format LOG_FORMAT names: one JSON object a line (the default, for
 * log collectors), or `pretty` for a person (in colour on a terminal, unless NO_COLOR is set). It is the only logger
 * (besides the tracer's, which only adds to spans), so that no line is written twice in two formats.
 */
export const LogsTo = (target: "stdout" | "stderr") =>
  Layer.unwrapEffect(
    Effect.map(OutputConfig, (config) => {
      const tty = (target === "stdout" ? process.stdout : process.stderr).isTTY === true
      const logger =
        config.logFormat === "json"
          ? (target === "stdout" ? Logger.withConsoleLog : Logger.withConsoleError)(Logger.jsonLogger)
          : Logger.prettyLogger({ stderr: target === "stderr", colors: tty && !config.noColor })
      return Layer.scopedDiscard(
        Effect.locallyScopedWith(FiberRef.currentLoggers, (loggers) =>
          HashSet.add(
            HashSet.filter(loggers, (other) => other === Logger.tracerLogger),
            logger
          )
        )
      )
    })
  )
