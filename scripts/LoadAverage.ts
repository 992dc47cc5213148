import os from "node:os"

/**
 * The 1, 5 and 15 minute load averages, for the benchmarks to print: the machine may be shared, and how busy it was
 * says how far one run's figures can be compared with another's.
 */
export const loadAverage = (): string =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")
