import { availableParallelism } from "node:os"
import { Effect } from "effect"
import { Piscina } from "piscina"
import type { ProtectedLink } from "../Html/ProtectedLinks.js"
import { type SanitizeResult, sanitize } from "../Html/Sanitize.js"
import { textEditResult } from "../Html/TextEdit.js"

/**
 * Bodies up to this many characters are sanitised on the calling thread: with at most one element per three
 * characters they take about a millisecond, less than handing them to a worker and back.
 */
export const INLINE_MAX_CHARACTERS = 2048

/**
 * The worker's module: the TypeScript source when this module runs from source (tests and scripts, through tsx),
 * the bundle's own entry point beside the chunk that holds this module when it runs from dist/ (scripts/build.js).
 */
const workerModule = () =>
  import.meta.url.endsWith(".ts")
    ? { filename: new URL("./SanitizeWorker.ts", import.meta.url).href, execArgv: ["--import", "tsx"] }
    : { filename: new URL("./sanitize-worker.js", import.meta.url).href, execArgv: [] }

/**
 * The sanitiser, run off the event loop. A body at the bounds takes tens of milliseconds to parse, filter and
 * serialise (up to a few times, until it settles): on the thread that answers every request, each such write would
 * hold up everyone's requests for that long. Bodies are sanitised in a pool of worker threads, one per core (piscina:
 * a kept-up pool with a queue, cancellation of queued tasks whose request went away, and replacement of a worker
 * that fails, and a lower priority for its threads), started when the first large body arrives and stopped when
 * idle. Small bodies stay on the thread.
 */
export class Sanitizer extends Effect.Service<Sanitizer>()("Articles/Sanitizer", {
  scoped: Effect.gen(function* () {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(
        () =>
          new Piscina<string, SanitizeResult>({
            ...workerModule(),
            minThreads: 0,
            maxThreads: availableParallelism(),
            idleTimeout: 60_000,
            // The threads run at a lower priority than the one that answers requests: on a busy machine, requests
            // are answered first and the sanitising waits.
            niceIncrement: 10,
            // A backstop: the bounds keep a task to a few megabytes.
            resourceLimits: { maxOldGenerationSizeMb: 256 }
          })
      ),
      (pool) => Effect.promise(() => pool.destroy())
    )

    /** The sanitiser's answer for `source` (see Html/Sanitize). */
    const body = (source: string): Effect.Effect<SanitizeResult> =>
      source.length <= INLINE_MAX_CHARACTERS
        ? Effect.sync(() => sanitize(source))
        : Effect.tryPromise((signal) => pool.run(source, { signal })).pipe(Effect.orDie)

    /**
     * The sanitiser's answer for `after`, a body made from the canonical `before` (whose protected links are
     * `links`) by replacing text: read in one linear pass when only text changed (Html/TextEdit), else sanitised.
     */
    const textEdit = (before: string, links: ReadonlyArray<ProtectedLink>, after: string) =>
      Effect.suspend(() => {
        const read = textEditResult(before, links, after)
        return read === undefined ? body(after) : Effect.succeed(read)
      })

    return { body, textEdit }
  })
}) {}
