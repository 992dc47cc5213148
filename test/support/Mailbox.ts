import type { AddressInfo } from "node:net"
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { SMTPServer } from "smtp-server"
import { eventually } from "./Eventually.js"
import { TestDatabaseLive } from "./TestDatabase.js"
import { testServerOn } from "./TestServer.js"

/** A mail as the test's SMTP server took it: its recipients, and its text (the transfer encoding undone). */
export interface Received {
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly from: string
  readonly text: string
}

/** A test's own SMTP server on 127.0.0.1 (plain SMTP, no login), and every mail it has taken. */
export class Mailbox extends Context.Tag("test/Mailbox")<
  Mailbox,
  { readonly url: string; readonly received: ReadonlyArray<Received> }
>() {}

const unfold = (headers: string) => headers.replace(/\r?\n[ \t]+/g, " ")
const header = (headers: string, name: string) =>
  new RegExp(`^${name}:[ \\t]*(.*)$`, "im").exec(unfold(headers))?.[1]?.trim() ?? ""

/** The body of a single-part mail as text, decoded from quoted-printable or base64. */
const bodyText = (headers: string, body: string) => {
  const encoding = header(headers, "content-transfer-encoding").toLowerCase()
  if (encoding === "base64") return Buffer.from(body, "base64").toString("utf8")
  if (encoding !== "quoted-printable") return body
  const bytes = body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`)
  return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, "%25"))
}

const parse = (to: ReadonlyArray<string>, raw: string): Received => {
  const at = raw.search(/\r?\n\r?\n/)
  const headers = raw.slice(0, at)
  const body = raw.slice(at).replace(/^\r?\n\r?\n/, "")
  return { to, subject: header(headers, "subject"), from: header(headers, "from"), text: bodyText(headers, body) }
}

/** Starts the SMTP server for the file and stops it afterwards. */
export const MailboxLive = Layer.scoped(
  Mailbox,
  Effect.gen(function* () {
    const received: Array<Received> = []
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onData(stream, session, done) {
        const chunks: Array<Buffer> = []
        stream.on("data", (chunk: Buffer) => chunks.push(chunk))
        stream.on("end", () => {
          const to = session.envelope.rcptTo.map((rcpt) => rcpt.address)
          received.push(parse(to, Buffer.concat(chunks).toString("utf8")))
          done()
        })
      }
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () => Effect.async<void>((resume) => server.close(() => resume(Effect.void)))
    )
    const { port } = server.server.address() as AddressInfo
    return { url: `smtp://127.0.0.1:${port}`, received }
  })
)

/** The mails to `to` taken so far. */
export const mailsTo = (to: string) =>
  Effect.map(Mailbox, (mailbox) => mailbox.received.filter((mail) => mail.to.includes(to.toLowerCase())))

/** Waits for the `count`th mail to `to` (the first by default) and returns it; dies when it never comes. */
export const nextMail = (to: string, count = 1) =>
  Effect.gen(function* () {
    const mails = yield* eventually(mailsTo(to), (found) => found.length >= count)
    const mail = mails[count - 1]
    return mail === undefined ? yield* Effect.dieMessage(`no mail ${count} to ${to} arrived`) : mail
  })

/** The reset link in a mail's text. */
export const linkIn = (mail: Received) => {
  const link = /https?:\/\/\S+\/signin\/reset\?token=\S+/.exec(mail.text)?.[0]
  if (link === undefined) throw new Error(`no reset link in: ${mail.text}`)
  return link
}

/** The whole service on a fresh database, with `SMTP_URL` naming the test's SMTP server, and that server's mailbox. */
export const TestServerWithMailLive = Layer.flatMap(MailboxLive, (context) =>
  Layer.merge(
    Layer.succeedContext(context),
    testServerOn(
      TestDatabaseLive,
      Layer.setConfigProvider(
        ConfigProvider.fromMap(new Map([["SMTP_URL", Context.get(context, Mailbox).url]])).pipe(
          ConfigProvider.orElse(() => ConfigProvider.fromEnv())
        )
      )
    )
  )
)
