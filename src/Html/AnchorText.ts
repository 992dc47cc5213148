/** The longest anchor text kept, in UTF-16 code units; past it, the text is cut (never inside a character). */
export const MAX_ANCHOR_TEXT = 500

/**
 * A link's text as it arrives in pieces: runs of whitespace (non-breaking spaces included) become one space, the
 * ends are trimmed, and nothing past `MAX_ANCHOR_TEXT` is kept, so a link wrapped around a whole page costs no more
 * than a short one.
 */
export class AnchorText {
  private text = ""
  private spaceOwed = false
  private full = false

  /** Appends a piece of the link's text. */
  add(chars: string): void {
    if (this.full) return
    for (const [run] of chars.matchAll(/\s+|\S+/g)) {
      if (/^\s/.test(run)) {
        this.spaceOwed = this.text !== ""
        continue
      }
      this.text += (this.spaceOwed ? " " : "") + run
      this.spaceOwed = false
      if (this.text.length >= MAX_ANCHOR_TEXT) {
        this.text = cut(this.text, MAX_ANCHOR_TEXT)
        this.full = true
        return
      }
    }
  }

  /** The text so far, collapsed and trimmed. */
  get value(): string {
    return this.text
  }
}

/** `text` shortened to at most `length` code units without splitting a surrogate pair. */
const cut = (text: string, length: number): string => {
  if (text.length <= length) return text
  const last = text.charCodeAt(length - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length)
}

/** `text` collapsed and bounded as an anchor text is (for an image's `alt` standing in for the text). */
export const anchorTextOf = (text: string): string => {
  const anchor = new AnchorText()
  anchor.add(text)
  return anchor.value
}
