import { Effect, FiberRef, HashSet, Layer, Logger } from "effect"
import { OutputConfig } from "./Config.js"

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
      }
    )
  )
