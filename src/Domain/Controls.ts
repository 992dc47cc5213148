/**
 * The characters that make one line of text read other than it is: C0 controls (U+0000–U+001F, line breaks and ESC
 * among them), DEL and the C1 controls (U+007F–U+009F), and the bidirectional embeddings, overrides (U+202A–U+202E)
 * and isolates (U+2066–U+2069), with which `\u202Eexe.txt` reads "txt.exe". Pure and without imports: the request
 * schemas refuse these characters in one-line fields (Text.ts), and the pages and the assistants' cards (which run in
 * browsers) show any already stored as a visible marker (Ui/Markup.ts).
 */
export const CONTROL_CHARACTERS = "\\x00-\\x1f\\x7f-\\x9f\\u202a-\\u202e\\u2066-\\u2069"

const control = new RegExp(`[${CONTROL_CHARACTERS}]`)
const controls = new RegExp(`[${CONTROL_CHARACTERS}]`, "g")

/** A character's code point as Unicode writes it: `U+202E`. */
export const codePointName = (character: string) =>
  `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`

/** The first control character in `text`, if any. */
export const firstControl = (text: string): string | undefined => control.exec(text)?.[0]

/** `text` with each control character written as a visible marker: `⟨U+202E⟩exe.txt`. */
export const visibleControls = (text: string) => text.replace(controls, (character) => `⟨${codePointName(character)}⟩`)
