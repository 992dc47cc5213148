/**
 * "Preview changes" in place: the form (with the editor's HTML) is sent to the preview address, which runs the
 * service's dry run and answers the preview as a part of a page; it replaces the page's preview section. When the
 * answer is not such a part (the session ended, say), the form is sent as without script.
 */
export const Preview = (form: HTMLFormElement, sync: () => void) => {
  const region = document.getElementById("preview")
  if (region === null) return
  let sending = false
  form.addEventListener("submit", (event) => {
    const button = event.submitter
    if (!(button instanceof HTMLButtonElement) || button.name !== "preview" || sending) return
    event.preventDefault()
    sync()
    const fields = new URLSearchParams()
    for (const [name, value] of new FormData(form, button)) if (typeof value === "string") fields.append(name, value)
    sending = true
    button.disabled = true
    region.setAttribute("aria-busy", "true")
    fetch(button.formAction, {
      method: "POST",
      body: fields,
      headers: { "x-page-part": "preview" },
      credentials: "same-origin",
      redirect: "manual"
    })
      .then(async (response) => {
        if (response.headers.get("x-page-part") !== "preview") throw new Error("not a preview")
        region.innerHTML = await response.text()
        const heading = region.querySelector<HTMLElement>("h2")
        heading?.setAttribute("tabindex", "-1")
        heading?.focus()
      })
      .catch(() => {
        sending = true
        button.disabled = false
        form.requestSubmit(button)
      })
      .finally(() => {
        sending = false
        button.disabled = false
        region.removeAttribute("aria-busy")
      })
  })
}
