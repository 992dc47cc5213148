import { HttpApiBuilder, HttpRouter } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { BacklinkPath } from "../Api/Paths.js"
import { Backlinks } from "../Backlinks/Backlinks.js"
import { LinkCheckSettings } from "../LinkChecks/Settings.js"
import { htmlResponse } from "../Ui/Html.js"
import { backlinkPage } from "./BacklinkPage.js"
import { PageGuard } from "./Guard.js"
import { notFoundPage, sendPage } from "./Layout.js"
import { linkCheckerPage } from "./LinkCheckerPage.js"

const decodeBacklinkPath = Schema.decodeUnknownOption(BacklinkPath)

/**
 * `GET /backlinks/:id`: a backlink of the signed-in user's account with its health and its last checks, as
 * `GET /api/v1/backlinks/{id}` answers it (another account's backlink is a 404, like a missing one).
 * `GET /link-checker`: the public page the link checker's User-Agent names (no sign-in).
 */
export const BacklinkRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const guard = yield* PageGuard
    const backlinks = yield* Backlinks
    // The instance's own User-Agent and limits, as its checks send them.
    const settings = yield* LinkCheckSettings

    yield* router.get(
      "/backlinks/:id",
      guard.page((viewer) =>
        Effect.gen(function* () {
          const path = decodeBacklinkPath(yield* HttpRouter.params)
          if (Option.isNone(path)) return notFoundPage(viewer, "backlink")
          return yield* backlinks.get(viewer.credential, path.value.id).pipe(
            Effect.map(({ data }) => sendPage(backlinkPage(viewer, data))),
            Effect.catchTag("NotFound", () => Effect.succeed(notFoundPage(viewer, "backlink")))
          )
        })
      )
    )

    yield* router.get(
      "/link-checker",
      Effect.sync(() => htmlResponse(linkCheckerPage(settings)))
    )
  })
)
