import { Effect, Stream } from "effect"
import type { LinkRel } from "../Domain/LinkCheck.js"
import { LinkScanner } from "./LinkScanner.js"
import { PageDecoder } from "./PageDecoder.js"

/** What a page says about one link target. */
export interface LinkFinding {
  /** Whether the page has an `<a href>` resolving to the target. */
  readonly found: boolean
  /** The found link's `nofollow`, `sponsored` and `ugc` values (other `rel` values are left out); empty if none. */
  readonly rel: ReadonlyArray<LinkRel>
  /** The found link's text, whitespace collapsed, at most `MAX_ANCHOR_TEXT` long; an image's `alt` if it has none. */
  readonly anchorText: string | null
  /** Whether the page's head has a `<meta name="robots">` (or `googlebot`) saying `noindex` or `none`. */
  readonly noindex: boolean
  /** The encoding the page's bytes were read in; null when the page was given as text. */
  readonly encoding: string | null
}

/** Where the link is looked for. */
export interface LinkSearch {
  /** The page's address, after redirects: relative links resolve against it (or its `<base href>`). */
  readonly pageUrl: string
  /** The address the link must point to (compared normalised, see `Domain/LinkTargets`). */
  readonly targetUrl: string
  /** The response's Content-Type header, for its `charset`, when the page is given as bytes. */
  readonly contentType?: string | undefined
}

/**
 * Looks for the first `<a href>` of a page that resolves to a target, reading the page as it arrives (as bytes, or
 * as text). Memory stays bounded whatever the page: no tree is built, nothing of the page is kept but the found
 * link's (bounded) text and the tokenizer's current token, so a page of 100,000 links or of 10,000 nested elements
 * costs no more than a small one (the caller bounds how much is read). Reading stops at the end of the found link.
 */
export class LinkFinder {
  private readonly scanner: LinkScanner
  private readonly decoder: PageDecoder
  private givenText = false

  constructor(search: LinkSearch) {
    this.scanner = new LinkScanner(search.pageUrl, search.targetUrl)
    this.decoder = new PageDecoder(search.contentType)
  }

  /** Whether the finding is known: the rest of the page would change nothing, so it need not be read. */
  get settled(): boolean {
    return this.scanner.done
  }

  /** Reads the next bytes of the page. */
  write(bytes: Uint8Array): void {
    if (!this.scanner.done) this.scanner.feed(this.decoder.write(bytes), false)
  }

  /** Reads the next piece of the page's text (a page is given either as text or as bytes, not both). */
  writeText(text: string): void {
    this.givenText = true
    this.scanner.feed(text, false)
  }

  /** The finding, once the whole page (or as much as was read) has been written. */
  end(): LinkFinding {
    const rest = this.givenText ? "" : this.decoder.end()
    this.scanner.feed(rest, true)
    return {
      found: this.scanner.found,
      rel: this.scanner.rel,
      anchorText: this.scanner.found ? this.scanner.anchorText : null,
      noindex: this.scanner.noindex,
      encoding: this.givenText ? null : (this.decoder.encoding ?? null)
    }
  }
}

/** `LinkFinder` on a whole page, or on its pieces in order: text (strings) or bytes. */
export const findLink = (
  page: string | Uint8Array | Iterable<string> | Iterable<Uint8Array>,
  search: LinkSearch
): LinkFinding => {
  const finder = new LinkFinder(search)
  const pieces = typeof page === "string" || page instanceof Uint8Array ? [page] : page
  for (const piece of pieces) {
    if (finder.settled) break
    if (typeof piece === "string") finder.writeText(piece)
    else finder.write(piece)
  }
  return finder.end()
}

/**
 * `LinkFinder` on a page's body as a stream of bytes: reads it until the finding is settled or the stream ends, and
 * stops pulling (so a response body is not read further) once the link has been read.
 */
export const findLinkInStream = <E, R>(
  body: Stream.Stream<Uint8Array, E, R>,
  search: LinkSearch
): Effect.Effect<LinkFinding, E, R> =>
  Effect.suspend(() => {
    const finder = new LinkFinder(search)
    return Stream.runForEachWhile(body, (bytes) =>
      Effect.sync(() => {
        finder.write(bytes)
        return !finder.settled
      })
    ).pipe(Effect.map(() => finder.end()))
  })
