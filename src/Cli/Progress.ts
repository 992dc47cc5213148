import { Console, Effect } from "effect"
import type { ImportProgress } from "../Import/Import.js"

/** The share of the bar for checking the file; writing it (in the database) takes the rest, and most of the time. */
const CHECKING = 10

const percentOf = (progress: ImportProgress) => {
  const share = progress.total === 0 ? 1 : Math.min(1, progress.done / progress.total)
  return progress.phase === "checking" ? Math.floor(CHECKING * share) : CHECKING + Math.floor((100 - CHECKING) * share)
}

const number = (n: number) => n.toLocaleString("en-GB")

const detail = (progress: ImportProgress) =>
  progress.phase === "checking"
    ? "checking the file"
    : `${number(progress.done)} of ${number(progress.total)} records written`

/**
 * Shows how far an import is on stderr. On a terminal: a bar redrawn in place. Otherwise (a log, a pipe): one line
 * at each 5 %, so that a long import in a log still says it is alive without flooding it.
 */
export const importProgress = (label: string, terminal: boolean) => {
  let shown = -1
  let drawn = false
  let drawnLength = 0
  const report = (progress: ImportProgress) => {
    const percent = percentOf(progress)
    if (terminal) {
      if (percent === shown && progress.phase === "checking") return Effect.void
      shown = percent
      drawn = true
      const width = 30
      const filled = Math.round((width * percent) / 100)
      const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`
      // Redrawn over itself with a carriage return, padded to the last line's length: no escape codes at all.
      const line = `${label} [${bar}] ${percent} % ${detail(progress)}`
      const padded = line.padEnd(drawnLength)
      drawnLength = line.length
      return Effect.sync(() => process.stderr.write(`\r${padded}`))
    }
    const step = Math.floor(percent / 5) * 5
    if (step <= shown) return Effect.void
    shown = step
    return Console.error(`${label}: ${step} % (${detail(progress)})`)
  }
  /** Ends the bar's line on a terminal, so that what follows starts on a line of its own. */
  const end = Effect.sync(() => {
    if (drawn) process.stderr.write("\n")
    drawn = false
  })
  return { report, end }
}
