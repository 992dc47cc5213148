import { setBlockType, toggleMark, wrapIn } from "prosemirror-commands"
import { redo, undo } from "prosemirror-history"
import type { MarkType } from "prosemirror-model"
import { liftListItem, wrapInList } from "prosemirror-schema-list"
import { type Command, type EditorState, TextSelection } from "prosemirror-state"
import type { EditorView } from "prosemirror-view"
import { isAllowedUrl, schema } from "./Schema.js"

const { marks, nodes } = schema

const markActive = (state: EditorState, type: MarkType) => {
  const { from, to, empty, $from } = state.selection
  return empty ? type.isInSet(state.storedMarks ?? $from.marks()) !== undefined : state.doc.rangeHasMark(from, to, type)
}

/**
 * Bold or italic, whichever element the text already uses: `<b>` and `<strong>` (`<i>` and `<em>`) are both kept
 * as they are, and pressing the button again removes either.
 */
const toggleEither =
  (primary: MarkType, other: MarkType): Command =>
  (state, dispatch) => {
    if (!markActive(state, primary) && !markActive(state, other)) return toggleMark(primary)(state, dispatch)
    if (dispatch !== undefined) {
      const { from, to, empty } = state.selection
      dispatch(
        empty
          ? state.tr.removeStoredMark(primary).removeStoredMark(other)
          : state.tr.removeMark(from, to, primary).removeMark(from, to, other)
      )
    }
    return true
  }

export const toggleBold = toggleEither(marks["strong"]!, marks["b"]!)
export const toggleItalic = toggleEither(marks["em"]!, marks["i"]!)

/** A list around the selection, or the selection lifted out of the list it is in. */
const toggleList =
  (type: "bullet_list" | "ordered_list"): Command =>
  (state, dispatch) => {
    const { $from } = state.selection
    for (let depth = $from.depth; depth > 0; depth--) {
      if ($from.node(depth).type === nodes[type]) return liftListItem(nodes["list_item"]!)(state, dispatch)
    }
    return wrapInList(nodes[type]!)(state, dispatch)
  }

/** Sets a link on the selection (or inserts the address as a linked text when nothing is selected). */
export const setLink =
  (href: string): Command =>
  (state, dispatch) => {
    if (!isAllowedUrl(href) || href.trim() === "") return false
    if (dispatch !== undefined) {
      const { from, to, empty } = state.selection
      const link = marks["link"]!.create({ href: href.trim() })
      if (empty) {
        const tr = state.tr.insert(from, schema.text(href.trim(), [link]))
        dispatch(tr.setSelection(TextSelection.create(tr.doc, from + href.trim().length)))
      } else {
        dispatch(state.tr.removeMark(from, to, marks["link"]!).addMark(from, to, link))
      }
    }
    return true
  }

const removeLink: Command = (state, dispatch) => {
  const { from, to, $from } = state.selection
  const link = marks["link"]!
  if (!markActive(state, link)) return false
  if (dispatch !== undefined) {
    if (from !== to) {
      dispatch(state.tr.removeMark(from, to, link))
    } else {
      // The whole link the cursor is in.
      const parent = $from.parent
      let start = $from.start()
      let found: { from: number; to: number } | undefined
      parent.forEach((child, offset) => {
        const at = start + offset
        if (link.isInSet(child.marks) && at <= from && from <= at + child.nodeSize)
          found ??= { from: at, to: at + child.nodeSize }
      })
      start = found?.from ?? from
      dispatch(state.tr.removeMark(start, found?.to ?? to, link))
    }
  }
  return true
}

/** The text styles the select offers: a paragraph or a heading of level 2 to 4 (level 1 is the article's title). */
const STYLES = [
  { value: "p", label: "Paragraph" },
  { value: "h2", label: "Heading 2" },
  { value: "h3", label: "Heading 3" },
  { value: "h4", label: "Heading 4" }
] as const

const styleCommand = (value: string): Command =>
  value === "p" ? setBlockType(nodes["paragraph"]!) : setBlockType(nodes["heading"]!, { level: Number(value.slice(1)) })

const styleOf = (state: EditorState) => {
  const parent = state.selection.$from.parent
  if (parent.type === nodes["paragraph"]) return "p"
  if (parent.type === nodes["heading"]) return `h${parent.attrs["level"]}`
  return ""
}

interface Button {
  readonly label: string
  readonly keys?: string
  readonly command: Command
  readonly active?: (state: EditorState) => boolean
}

/**
 * The formatting toolbar: a text style select and buttons, each with its keyboard shortcut in its title, pressed
 * (aria-pressed) when the selection has it, disabled when it cannot apply. `openLink` asks for a link's address.
 */
export const toolbar = (view: () => EditorView, openLink: () => void) => {
  const bar = document.createElement("div")
  bar.className = "toolbar"
  bar.setAttribute("role", "toolbar")
  bar.setAttribute("aria-label", "Formatting")

  const select = document.createElement("select")
  select.setAttribute("aria-label", "Text style")
  const other = new Option("Other", "", false, false)
  other.disabled = true
  select.append(...STYLES.map((style) => new Option(style.label, style.value)), other)
  select.addEventListener("change", () => {
    const current = view()
    styleCommand(select.value)(current.state, current.dispatch)
    current.focus()
  })
  bar.append(select)

  const buttons: Array<Button> = [
    {
      label: "Bold",
      keys: "Ctrl+B",
      command: toggleBold,
      active: (s) => markActive(s, marks["strong"]!) || markActive(s, marks["b"]!)
    },
    {
      label: "Italic",
      keys: "Ctrl+I",
      command: toggleItalic,
      active: (s) => markActive(s, marks["em"]!) || markActive(s, marks["i"]!)
    },
    { label: "Bulleted list", command: toggleList("bullet_list") },
    { label: "Numbered list", command: toggleList("ordered_list") },
    { label: "Quote", command: wrapIn(nodes["blockquote"]!) },
    {
      label: "Link",
      keys: "Ctrl+K",
      command: (state) => !state.selection.empty || state.selection.$from.parent.inlineContent
    },
    { label: "Remove link", command: removeLink },
    { label: "Undo", keys: "Ctrl+Z", command: undo },
    { label: "Redo", keys: "Ctrl+Shift+Z", command: redo }
  ]
  const elements = buttons.map((spec) => {
    const button = document.createElement("button")
    button.type = "button"
    button.textContent = spec.label
    if (spec.keys !== undefined) button.title = `${spec.label} (${spec.keys})`
    if (spec.active !== undefined) button.setAttribute("aria-pressed", "false")
    // The selection stays in the text when a button is pressed with the mouse.
    button.addEventListener("mousedown", (event) => event.preventDefault())
    button.addEventListener("click", () => {
      const current = view()
      if (spec.label === "Link") openLink()
      else {
        spec.command(current.state, current.dispatch, current)
        current.focus()
      }
    })
    bar.append(button)
    return { spec, button }
  })

  /** Brings the toolbar up to date with the editor's state. */
  const update = (state: EditorState) => {
    select.value = styleOf(state)
    for (const { spec, button } of elements) {
      button.disabled = !spec.command(state)
      if (spec.active !== undefined) button.setAttribute("aria-pressed", String(spec.active(state)))
    }
  }
  return { element: bar, update }
}
