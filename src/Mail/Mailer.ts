import { Data, Effect, Option, Redacted } from "effect"
import { createTransport } from "nodemailer"
import { AppConfig } from "../Config.js"
import { PublicUrl } from "../Http/PublicUrl.js"

/** A plain-text mail to one address. */
export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
}

/** The SMTP server did not take a mail (unreachable, refused the login or the address). */
export class MailNotSent extends Data.TaggedError("MailNotSent")<{ readonly cause: unknown }> {}

/**
 * How long to wait for the SMTP server before a mail counts as not sent: nodemailer's own defaults (up to ten minutes
 * of silence) would let one dead server hold every mail behind it.
 */
const TIMEOUTS = { connectionTimeout: 20_000, greetingTimeout: 20_000, socketTimeout: 30_000 }

/**
 * The service's outgoing mail, through the SMTP server `SMTP_URL` names (nodemailer), from `SMTP_FROM` or else
 * `no-reply@` the public base URL's host. Without `SMTP_URL` it sends nothing and says so (`enabled`).
 */
export class Mailer extends Effect.Service<Mailer>()("Mail/Mailer", {
  effect: Effect.gen(function* () {
    const { smtpUrl, smtpFrom } = yield* AppConfig
    const base = yield* PublicUrl
    const from = Option.getOrElse(smtpFrom, () => `no-reply@${new URL(base).hostname}`)
    const transport = Option.map(smtpUrl, (url) => createTransport({ url: Redacted.value(url), ...TIMEOUTS }))

    /** Hands a mail to the SMTP server; fails with `MailNotSent` when it does not take it. */
    const send = Effect.fn("Mailer.send")(function* (mail: Mail) {
      if (Option.isNone(transport)) return yield* Effect.dieMessage("no SMTP_URL: no mail can be sent")
      const smtp = transport.value
      yield* Effect.tryPromise({
        try: () => smtp.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text }),
        catch: (cause) => new MailNotSent({ cause })
      })
    })

    return { enabled: Option.isSome(transport), send }
  })
}) {}
