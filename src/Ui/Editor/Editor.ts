import { baseKeymap } from "prosemirror-commands"
import { dropCursor } from "prosemirror-dropcursor"
import { history, redo, undo } from "prosemirror-history"
import { keymap } from "prosemirror-keymap"
import { liftListItem, sinkListItem, splitListItem } from "prosemirror-schema-list"
import { type Command, EditorState } from "prosemirror-state"
import { EditorView } from "prosemirror-view"
import { type LoadedBody, loadBody, writeBody } from "./Body.js"
import { Counters } from "./Counters.js"
import { cleanPastedHtml } from "./Paste.js"
import { Preview } from "./Preview.js"
import { protectedLinks } from "./ProtectedLinks.js"
import { schema } from "./Schema.js"
import { setLink, toggleBold, toggleItalic, toolbar } from "./Toolbar.js"

/**
 * The article page's editor. Without script the page has a plain HTML textarea; with it, the textarea gives way to
 * a rich-text editor (and comes back with "Edit HTML"), and the form sends the editor's HTML in its place. The
 * title and meta description get live counters, "Preview changes" shows the service's dry run in the page, and the
 * featured image's form checks a file's size before sending it.
 */

const listItem = schema.nodes["list_item"]!
const hardBreak: Command = (state, dispatch) => {
  dispatch?.(state.tr.replaceSelectionWith(schema.nodes["hard_break"]!.create()).scrollIntoView())
  return true
}

const mount = (form: HTMLFormElement) => {
  const textarea = form.querySelector<HTMLTextAreaElement>("textarea[name=body]")
  const label = form.querySelector<HTMLLabelElement>("label[for=body]")
  if (textarea === null || label === null) return

  const shell = document.createElement("div")
  shell.className = "rich-editor"
  const name = document.createElement("span")
  name.id = "body-rich-label"
  name.className = "label"
  name.textContent = "Body"
  const surface = document.createElement("div")
  surface.className = "rich-surface"
  const status = document.createElement("p")
  status.className = "editor-status"
  status.setAttribute("role", "status")
  const toggle = document.createElement("button")
  toggle.type = "button"
  toggle.className = "mode"
  toggle.setAttribute("aria-pressed", "false")

  let statusTimer: ReturnType<typeof setTimeout> | undefined
  const say = (message: string) => {
    status.textContent = message
    clearTimeout(statusTimer)
    statusTimer = setTimeout(() => {
      status.textContent = ""
    }, 8000)
  }

  let loaded: LoadedBody = loadBody(textarea.value)
  let view: EditorView
  const bar = toolbar(
    () => view,
    () => openLink()
  )
  const stateOf = (body: LoadedBody) =>
    EditorState.create({
      doc: body.doc,
      plugins: [
        protectedLinks(say),
        history(),
        keymap({
          "Mod-z": undo,
          "Shift-Mod-z": redo,
          "Mod-y": redo,
          "Mod-b": toggleBold,
          "Mod-i": toggleItalic,
          "Mod-k": () => {
            openLink()
            return true
          },
          Enter: splitListItem(listItem),
          "Shift-Enter": hardBreak,
          "Mod-[": liftListItem(listItem),
          "Mod-]": sinkListItem(listItem)
        }),
        keymap(baseKeymap),
        dropCursor()
      ]
    })
  view = new EditorView(surface, {
    state: stateOf(loaded),
    attributes: {
      role: "textbox",
      "aria-multiline": "true",
      "aria-labelledby": "body-rich-label",
      "aria-describedby": "body-rich-help",
      class: "rich-text"
    },
    transformPastedHTML: cleanPastedHtml,
    dispatchTransaction(transaction) {
      view.updateState(view.state.apply(transaction))
      bar.update(view.state)
    }
  })
  bar.update(view.state)

  const help = document.createElement("p")
  help.id = "body-rich-help"
  help.className = "muted"
  help.textContent =
    "Protected links are locked: they move with the text around them but cannot be changed or deleted. Tab leaves the text; Ctrl+B bold, Ctrl+I italic, Ctrl+K link."

  // HTML mode: the textarea, as without script; leaving it opens what was typed there. The form's `mode` says which
  // is in use, so that a refused save comes back in it with the text as typed.
  const mode = form.querySelector<HTMLInputElement>("input[name=mode]")
  let html = mode?.value === "html"
  const showMode = () => {
    if (mode !== null) mode.value = html ? "html" : "rich"
    toggle.textContent = html ? "Back to rich text" : "Edit HTML"
    toggle.setAttribute("aria-pressed", String(html))
    textarea.hidden = !html
    label.hidden = !html
    for (const part of [name, bar.element, surface, help]) part.hidden = html
  }
  toggle.addEventListener("click", () => {
    if (html) {
      loaded = loadBody(textarea.value)
      view.updateState(stateOf(loaded))
      bar.update(view.state)
    } else {
      textarea.value = writeBody(view.state.doc, loaded)
    }
    html = !html
    showMode()
    ;(html ? textarea : view).focus()
  })
  const sync = () => {
    if (!html) textarea.value = writeBody(view.state.doc, loaded)
  }

  // The link dialog: an address, checked as the service checks it.
  const dialog = document.createElement("dialog")
  dialog.className = "link-dialog"
  dialog.setAttribute("aria-labelledby", "link-dialog-title")
  dialog.innerHTML = `<form method="dialog"><h3 id="link-dialog-title">Link</h3>
<label for="link-href">Address (https://…, mailto:…, tel:… or a path on the site)</label>
<input id="link-href" type="text" inputmode="url" autocomplete="off" spellcheck="false">
<p class="error-text" role="alert"></p>
<div class="actions"><button class="primary" value="apply">Apply</button><button value="cancel" formnovalidate>Cancel</button></div></form>`
  const hrefInput = dialog.querySelector("input")!
  const linkError = dialog.querySelector<HTMLElement>(".error-text")!
  const openLink = () => {
    linkError.textContent = ""
    hrefInput.value = ""
    dialog.showModal()
    hrefInput.focus()
  }
  dialog.querySelector("form")!.addEventListener("submit", (event) => {
    if (event.submitter instanceof HTMLButtonElement && event.submitter.value === "apply") {
      if (!setLink(hrefInput.value)(view.state, view.dispatch)) {
        event.preventDefault()
        linkError.textContent =
          "Use an address that starts with https://, http://, mailto: or tel:, or a path such as /contact."
        return
      }
    }
  })
  dialog.addEventListener("close", () => view.focus())

  const header = document.createElement("div")
  header.className = "editor-head"
  header.append(name, toggle)
  shell.append(header, bar.element, surface, help, status, dialog)
  textarea.before(shell)
  shell.append(label, textarea)
  showMode()

  form.addEventListener("submit", sync, { capture: true })
  Preview(form, sync)
}

for (const form of document.querySelectorAll<HTMLFormElement>("form.article-editor")) mount(form)
// A refused save (or the links just put back) is said next to Save: it takes the focus, so it is read and in view.
const note = document.getElementById("editor-note")
if (note !== null) {
  note.focus({ preventScroll: true })
  note.scrollIntoView({ block: "center" })
  // The page answered the form's POST: the address bar names the article page, which reloads without resending.
  window.history.replaceState(null, "", location.pathname.replace(/\/edit$/, ""))
}
for (const field of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("[data-max]")) Counters(field)
for (const input of document.querySelectorAll<HTMLInputElement>("input[type=file][data-max-bytes]")) {
  input.addEventListener("change", () => {
    const file = input.files?.[0]
    const max = Number(input.dataset["maxBytes"])
    input.setCustomValidity(
      file !== undefined && file.size > max
        ? `This file is ${(file.size / 1048576).toFixed(1)} MiB; an image may be at most ${max / 1048576} MiB.`
        : ""
    )
    input.reportValidity()
  })
}
