import { assert } from "@effect/vitest"

/**
 * Asserts that `answer(input)` is the value each input is mapped to, in the order written; a failure names the
 * input, so that one test over a table of inputs still says which of them went wrong.
 */
export const assertAnswers = <A>(answer: (input: string) => A, cases: Readonly<Record<string, A>>): void => {
  for (const [input, expected] of Object.entries(cases)) {
    assert.deepStrictEqual(answer(input), expected, JSON.stringify(input))
  }
}
