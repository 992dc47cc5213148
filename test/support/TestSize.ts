/**
 * The size of property tests. `CBS_TEST_FULL=1` (CI's primary run) gives every property its full number of runs;
 * without it, a property runs a smaller number that still covers its cases, so that a run on a laptop takes seconds.
 */
export const FULL_SIZE = process.env["CBS_TEST_FULL"] === "1"

/** `full` runs under CBS_TEST_FULL=1, else `quick`. */
export const sized = (full: number, quick: number) => (FULL_SIZE ? full : quick)
