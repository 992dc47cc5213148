import { ResultType, Sniffer } from "encoding-sniffer/sniffer"

/** How many leading bytes are read for a byte order mark, a `<meta charset>` or an XML declaration (as browsers do). */
const SNIFF_BYTES = 1024

/** The `charset` parameter of a Content-Type header value (quotes removed), if it has one. */
export const charsetOf = (contentType: string): string | undefined => {
  for (const parameter of contentType.split(";").slice(1)) {
    const equals = parameter.indexOf("=")
    if (equals === -1 || parameter.slice(0, equals).trim().toLowerCase() !== "charset") continue
    const value = parameter
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
    return value === "" ? undefined : value
  }
  return undefined
}

/** Whether `bytes` are UTF-8, allowing a character cut off at their end (the sniffed window ends anywhere). */
const looksLikeUtf8 = (bytes: Uint8Array): boolean => {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true })
    return true
  } catch {
    return false
  }
}

/** A decoder for `encoding`, or for windows-1252 when Node.js has none for it (see `PageDecoder`). */
const decoderFor = (encoding: string): TextDecoder => {
  try {
    return new TextDecoder(encoding)
  } catch {
    return new TextDecoder("windows-1252")
  }
}

/**
 * Turns a page's bytes, as they arrive, into text, choosing the character encoding as a browser would (the HTML
 * standard's encoding sniffing, by the `encoding-sniffer` package): a byte order mark first, then the Content-Type
 * header's `charset`, then a `<meta charset>` or `<meta http-equiv="Content-Type">` (or an XML declaration) within
 * the first 1024 bytes. A page that declares nothing is read as UTF-8 when those bytes are valid UTF-8, else as
 * windows-1252 (the web's usual legacy default). The text is decoded by Node.js's own `TextDecoder`, which knows every
 * encoding of the Encoding standard but three (ISO-8859-16, x-user-defined and the "replacement" encoding): those are
 * read as windows-1252, which keeps ASCII, so addresses still match. Undecodable bytes become U+FFFD.
 *
 * Only the first 1024 bytes are held back, until the encoding is known; everything after is decoded chunk by chunk.
 */
export class PageDecoder {
  private readonly sniffer: Sniffer
  private readonly held: Array<Uint8Array> = []
  private heldBytes = 0
  private decoder: TextDecoder | undefined

  /** `contentType`: the response's Content-Type header, for its `charset`. */
  constructor(contentType?: string) {
    const label = contentType === undefined ? undefined : charsetOf(contentType)
    this.sniffer = new Sniffer(label === undefined ? {} : { transportLayerEncodingLabel: label })
  }

  /** The encoding the page is read in; undefined until it is known (at most 1024 bytes or the end in). */
  get encoding(): string | undefined {
    return this.decoder?.encoding
  }

  /** The text of `bytes` (and of any bytes held before them) as far as it can be decoded yet. */
  write(bytes: Uint8Array): string {
    if (this.decoder !== undefined) return this.decoder.decode(bytes, { stream: true })
    this.sniffer.write(bytes.subarray(0, SNIFF_BYTES - this.heldBytes))
    this.held.push(bytes)
    this.heldBytes += bytes.length
    const settled = this.heldBytes >= SNIFF_BYTES || this.sniffer.resultType <= ResultType.PASSED
    return settled ? this.release() : ""
  }

  /** The rest of the text, once every byte has been written. */
  end(): string {
    const text = this.decoder === undefined ? this.release() : ""
    return text + this.decoder!.decode()
  }

  /** Chooses the encoding from what was sniffed and decodes the bytes held until then. */
  private release(): string {
    const sniffed = this.sniffer.resultType === ResultType.DEFAULT ? this.undeclared() : this.sniffer.encoding
    const decoder = decoderFor(sniffed)
    this.decoder = decoder
    const text = this.held.map((bytes) => decoder.decode(bytes, { stream: true })).join("")
    this.held.length = 0
    return text
  }

  private undeclared(): string {
    const bytes = Buffer.concat(this.held).subarray(0, SNIFF_BYTES)
    return looksLikeUtf8(bytes) ? "utf-8" : "windows-1252"
  }
}
