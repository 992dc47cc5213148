import { Token } from "parse5"
import { SAXParser } from "parse5-sax-parser"
import { LinkRel } from "../Domain/LinkCheck.js"
import { documentBase, normaliseUrl, resolveAgainst } from "../Domain/LinkTargets.js"
import { isRobotsMetaName, metaSaysNoindex } from "../Domain/Robots.js"
import { AnchorText, anchorTextOf } from "./AnchorText.js"

/** Elements that belong in a document's head: any other start tag begins the body, as in the HTML parser. */
const HEAD_ELEMENTS = new Set([
  "html",
  "head",
  "meta",
  "link",
  "title",
  "style",
  "script",
  "noscript",
  "base",
  "template"
])

/** Elements whose content is not text a reader sees, inside a link. */
const UNSEEN_TEXT = new Set(["script", "style", "template"])

const relsOf = (rel: string | null): ReadonlyArray<LinkRel> => {
  const tokens = new Set((rel ?? "").toLowerCase().split(/[\t\n\f\r ]+/))
  return LinkRel.literals.filter((value) => tokens.has(value))
}

/**
 * Reads the page token by token with parse5's tokenizer (and the parser's feedback, so that `<a>` inside a
 * `<script>` or a `<textarea>` is text, as in a browser), keeping no tree and no text other than the found link's.
 */
export class LinkScanner extends SAXParser {
  private readonly target: string | undefined
  private base: URL | undefined
  private baseSeen = false
  private inHead = true
  private anchor: AnchorText | undefined
  private alt: string | undefined
  private unseen: string | undefined
  found = false
  rel: ReadonlyArray<LinkRel> = []
  anchorText: string | null = null
  noindex = false
  /** Once the link has been read to its end: the rest of the page changes nothing. */
  done = false

  constructor(
    private readonly pageUrl: string,
    targetUrl: string
  ) {
    super()
    this.target = normaliseUrl(targetUrl)
    this.base = documentBase(pageUrl)
    // An address that cannot be a link target is in no page: nothing to read.
    this.done = this.target === undefined || this.base === undefined
  }

  feed(text: string, last: boolean): void {
    if (!this.done) this.tokenizer.write(text, last)
  }

  override onStartTag(token: Token.TagToken): void {
    const name = token.tagName
    if (this.inHead && !HEAD_ELEMENTS.has(name)) this.inHead = false
    if (name === "a") this.onLink(token)
    else if (name === "base" && !this.baseSeen) this.onBase(token)
    else if (name === "meta" && this.inHead) this.onMeta(token)
    else if (this.anchor !== undefined) this.insideLink(name, token)
  }

  override onEndTag(token: Token.TagToken): void {
    if (token.tagName === "head") this.inHead = false
    if (this.anchor === undefined) return
    if (token.tagName === this.unseen) this.unseen = undefined
    else if (token.tagName === "a") this.finish()
  }

  override onCharacter(token: Token.CharacterToken): void {
    if (this.anchor !== undefined && this.unseen === undefined) this.anchor.add(token.chars)
  }

  override onWhitespaceCharacter(token: Token.CharacterToken): void {
    this.onCharacter(token)
  }

  // NUL, comments and the doctype say nothing about links: skip building them.
  override onNullCharacter(): void {}
  override onComment(): void {}
  override onDoctype(): void {}

  override onEof(): void {
    if (this.anchor !== undefined) this.finish()
    this.done = true
  }

  private onLink(token: Token.TagToken): void {
    // An `<a>` inside an open one closes it, as the HTML parser does.
    if (this.anchor !== undefined) {
      this.finish()
      return
    }
    const href = Token.getTokenAttr(token, "href")
    if (href === null || resolveAgainst(href, this.base!) !== this.target) return
    this.found = true
    this.rel = relsOf(Token.getTokenAttr(token, "rel"))
    this.anchor = new AnchorText()
  }

  private insideLink(name: string, token: Token.TagToken): void {
    if (name === "img" && this.alt === undefined) this.alt = Token.getTokenAttr(token, "alt") ?? undefined
    if (UNSEEN_TEXT.has(name) && !token.selfClosing) this.unseen ??= name
  }

  // The first `<base href>` sets the base of the links after it (a conforming page has it in its head, before any).
  private onBase(token: Token.TagToken): void {
    const href = Token.getTokenAttr(token, "href")
    if (href === null) return
    this.baseSeen = true
    this.base = documentBase(this.pageUrl, href)
  }

  private onMeta(token: Token.TagToken): void {
    const name = Token.getTokenAttr(token, "name")
    const content = Token.getTokenAttr(token, "content")
    if (name !== null && content !== null && isRobotsMetaName(name) && metaSaysNoindex(content)) this.noindex = true
  }

  private finish(): void {
    const text = this.anchor!.value
    this.anchorText = text === "" && this.alt !== undefined ? anchorTextOf(this.alt) : text
    this.anchor = undefined
    this.done = true
    this.stop()
  }
}
