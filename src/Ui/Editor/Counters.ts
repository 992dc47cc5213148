/**
 * A live count of a field's characters against its bounds (`data-max`, and `data-min` after trimming), as the
 * service counts them: "42 of 255 characters", marked when the field is out of bounds.
 */
export const Counters = (field: HTMLInputElement | HTMLTextAreaElement) => {
  const max = Number(field.dataset["max"])
  const min = Number(field.dataset["min"] ?? "0")
  const counter = document.createElement("span")
  counter.className = "counter"
  counter.id = `${field.id}-count`
  field.after(counter)
  field.setAttribute("aria-describedby", [field.getAttribute("aria-describedby"), counter.id].filter(Boolean).join(" "))
  const show = () => {
    const length = field.value.trim().length
    const out = length > max || length < min
    counter.textContent =
      length < min
        ? `Required: 0 of ${max} characters`
        : `${length} of ${max} characters${length > max ? `: ${length - max} too many` : ""}`
    counter.classList.toggle("over", out)
  }
  field.addEventListener("input", show)
  show()
}
