import type { Mail } from "../Mail/Mailer.js"

/** The reset mail: plain text, the link on a line of its own (mail programs make it clickable), and what it does. */
export const resetMail = (options: {
  readonly to: string
  readonly link: string
  readonly base: string
  readonly minutes: number
}): Mail => ({
  to: options.to,
  subject: "Reset your password",
  text: [
    `Someone, hopefully you, asked to reset the password of ${options.to} at ${options.base}.`,
    "",
    `To choose a new password, open this link within ${options.minutes} minutes. It works once:`,
    "",
    options.link,
    "",
    "Setting a new password signs you out of every browser. If you did not ask for this, ignore this mail: your",
    "password stays as it is.",
    ""
  ].join("\n")
})
