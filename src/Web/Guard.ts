import { HttpRouter, HttpServerRequest, type HttpServerResponse, type Multipart } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { csrfMatches, csrfToken } from "../SignIn/Csrf.js"
import { type Form, formOf, readForm } from "../SignIn/Forms.js"
import { signInUrl } from "../SignIn/ReturnTo.js"
import { type Session, Sessions } from "../SignIn/Sessions.js"
import { errorPage, forbiddenPage, nulPage, seeOther, type Viewer } from "./Layout.js"

/** Whether a parameter of the route's address holds a NUL (`/connection/assistants/%00/revoke`). */
const paramsHoldNul = Effect.map(Effect.serviceOption(HttpRouter.RouteContext), (route) =>
  Option.exists(route, ({ params }) => Object.values(params).some((value) => value?.includes("\0") === true))
)

const viewerOf = (session: Session): Viewer => ({
  userId: session.user.user_id,
  email: session.user.email,
  // The pages show the user's own account only: an admin's wider read access is for the API, not for these pages.
  credential: {
    kind: "user",
    id: session.user.user_id,
    accountId: session.user.account_id,
    isAdmin: false,
    canWrite: true
  },
  csrf: csrfToken(session.token)
})

/**
 * The session guard of the web pages: a page needs a signed-in user (otherwise 303 to the sign-in page, which comes
 * back here), and a form POST also needs the session's CSRF token (otherwise 403, and nothing is done).
 */
export class PageGuard extends Effect.Service<PageGuard>()("Web/PageGuard", {
  dependencies: [Sessions.Default],
  effect: Effect.gen(function* () {
    const sessions = yield* Sessions

    /** A page for the signed-in user; the sign-in page returns to the same address. */
    const page = <E, R>(
      handle: (viewer: Viewer, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Response, E, R>
    ) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const session = yield* sessions.current(request)
        if (Option.isNone(session)) return seeOther(signInUrl(request.url))
        const viewer = viewerOf(session.value)
        if (yield* paramsHoldNul) return nulPage(viewer, "address")
        return yield* handle(viewer, request)
      })

    /**
     * A form POST of a signed-in user carrying the session's CSRF token. Signed out, the user is sent to sign in and
     * then to `returnTo` (the page the form was on), because a POST address cannot be returned to.
     */
    const form = <E, R>(returnTo: string, handle: (viewer: Viewer, form: Form) => Effect.Effect<Response, E, R>) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const session = yield* sessions.current(request)
        if (Option.isNone(session)) return seeOther(signInUrl(returnTo))
        const viewer = viewerOf(session.value)
        const fields = yield* readForm(request)
        if (Option.isNone(fields) || !csrfMatches(session.value.token, fields.value.get("csrf"))) {
          return forbiddenPage(viewer)
        }
        if (fields.value.withNul !== undefined) return nulPage(viewer, `field ${fields.value.withNul}`)
        if (yield* paramsHoldNul) return nulPage(viewer, "address")
        return yield* handle(viewer, fields.value)
      })

    /**
     * A multipart form POST (a file upload) of a signed-in user carrying the session's CSRF token; the handler gets
     * the text fields and the files, written to a temporary folder that goes when the request ends. The request's
     * multipart limits apply (10 MiB and a little for a file, 16 parts): a body past them is refused with a page.
     */
    const upload = <E, R>(
      returnTo: string,
      handle: (
        viewer: Viewer,
        form: Form,
        files: ReadonlyArray<Multipart.PersistedFile>
      ) => Effect.Effect<Response, E, R>
    ) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const session = yield* sessions.current(request)
        if (Option.isNone(session)) return seeOther(signInUrl(returnTo))
        const viewer = viewerOf(session.value)
        const parts = yield* Effect.either(request.multipart)
        if (Either.isLeft(parts)) {
          const tooLarge = parts.left.reason === "FileTooLarge" || parts.left.reason === "BodyTooLarge"
          return errorPage(
            viewer,
            tooLarge ? 413 : 422,
            tooLarge ? "Too large" : "Not sent",
            tooLarge
              ? "The file is too large: an image may be at most 10 MiB. Nothing was saved."
              : "The form could not be read. Go back and send it again; nothing was saved."
          )
        }
        const texts: Array<readonly [string, string]> = []
        const files: Array<Multipart.PersistedFile> = []
        for (const [name, value] of Object.entries(parts.right)) {
          if (typeof value === "string") texts.push([name, value])
          else for (const item of value) typeof item === "string" ? texts.push([name, item]) : files.push(item)
        }
        const fields = formOf(texts)
        if (!csrfMatches(session.value.token, fields.get("csrf"))) return forbiddenPage(viewer)
        if (fields.withNul !== undefined) return nulPage(viewer, `field ${fields.withNul}`)
        if (yield* paramsHoldNul) return nulPage(viewer, "address")
        return yield* handle(viewer, fields, files)
      }).pipe(Effect.scoped)

    return { page, form, upload }
  })
}) {}

type Response = HttpServerResponse.HttpServerResponse
