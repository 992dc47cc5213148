import { Schema } from "effect"
import { maxLength } from "./Bounds.js"
import { OneLine } from "./Text.js"

/** The most characters a search may have. */
export const MAX_SEARCH_CHARACTERS = 200

/** The most characters of an article's `match` excerpt. */
export const MAX_MATCH_CHARACTERS = 200

/** `q` of the articles list: one line of 1-200 characters with at least one character that is not white space. */
export const SearchText = OneLine.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  maxLength(MAX_SEARCH_CHARACTERS),
  Schema.filter((s) => s.trim().length > 0, { message: () => "must hold a word, not only white space" })
).annotations({
  description: `Search (1-${MAX_SEARCH_CHARACTERS} characters): only articles whose title, target keyword or body text (not its markup) contain every word; "a quoted phrase" matches only as that phrase. Case and accents are ignored; word forms follow the website's language (leaking finds leaks in English). Ordered by relevance, each item with \`match\`, an excerpt around the hit.`,
  jsonSchema: { minLength: 1, maxLength: MAX_SEARCH_CHARACTERS }
})

/** A search as the database reads it: the phrases in double quotes, and the other words. */
export interface SearchTerms {
  readonly phrases: ReadonlyArray<string>
  /** The words outside quotes, space separated ("" when there are none). */
  readonly words: string
}

/**
 * Reads `q`: each pair of double quotes is a phrase; an unpaired quote is a character like another (the database's
 * parser does not make it part of a word).
 */
export const searchTerms = (q: string): SearchTerms => {
  const phrases: Array<string> = []
  const rest = q.replace(/"([^"]*)"/g, (_quoted, phrase: string) => {
    if (phrase.trim() !== "") phrases.push(phrase.trim())
    return " "
  })
  return { phrases, words: rest.replace(/\s+/g, " ").trim() }
}
