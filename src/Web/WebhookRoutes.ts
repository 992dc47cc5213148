import { HttpApiBuilder, HttpRouter, type HttpServerResponse } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import type { NotFound } from "../Domain/Errors.js"
import { PathId } from "../Domain/Ids.js"
import { DEFAULT_PER_PAGE, MAX_PAGE, pageNumberOf } from "../Domain/Pagination.js"
import { WebhookDeliveryId, WebhookEndpointId } from "../Domain/Webhook.js"
import { DeliveryLog } from "../Webhooks/DeliveryLog.js"
import { WebhookEndpoints } from "../Webhooks/Endpoints.js"
import { PageGuard } from "./Guard.js"
import { notFoundPage, seeOther, sendPage, type Viewer } from "./Layout.js"
import { deliveriesPage } from "./WebhookDeliveriesPage.js"
import { deleteWebhookPage, webhookSecretPage } from "./WebhookPages.js"

const decodeEndpointId = Schema.decodeUnknownOption(
  PathId(WebhookEndpointId, "webhook endpoint", "Webhook endpoint id.")
)
const decodeDeliveryId = Schema.decodeUnknownOption(PathId(WebhookDeliveryId, "delivery", "Delivery id."))

const NOT_FOUND = "webhook endpoint"

/**
 * A webhook endpoint's forms and pages, beside the connection page that lists the endpoints (creation is there):
 * - `POST /connection/webhooks/:id/rotate`: a new secret, shown once;
 * - `POST /connection/webhooks/:id/disable` and `/enable`;
 * - `GET /connection/webhooks/:id/delete` asks, `POST` deletes;
 * - `GET /connection/webhooks/:id/deliveries`: the delivery log, paged (`?page=`);
 * - `POST /connection/webhooks/:id/deliveries/:delivery/resend` and `POST /connection/webhooks/:id/test`.
 * Every POST needs the session's CSRF token and answers with a redirect (post/redirect/get), except the ones that
 * show a secret; another account's endpoint is a 404.
 */
export const WebhookRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const guard = yield* PageGuard
    const endpoints = yield* WebhookEndpoints
    const log = yield* DeliveryLog

    /** The endpoint id of the path, or a 404 page for an address that cannot name one. */
    const withEndpoint = <R>(
      viewer: Viewer,
      handle: (id: WebhookEndpointId) => Effect.Effect<HttpServerResponse.HttpServerResponse, NotFound, R>
    ) =>
      Effect.flatMap(HttpRouter.params, (params) =>
        Option.match(decodeEndpointId(params["id"]), {
          onNone: () => Effect.succeed(notFoundPage(viewer, NOT_FOUND)),
          onSome: (id) =>
            handle(id).pipe(Effect.catchTag("NotFound", () => Effect.succeed(notFoundPage(viewer, NOT_FOUND))))
        })
      )

    const deliveriesOf = (id: WebhookEndpointId) => `/connection/webhooks/${id}/deliveries`

    yield* router.post(
      "/connection/webhooks/:id/rotate",
      guard.form("/connection", (viewer) =>
        withEndpoint(viewer, (id) =>
          Effect.map(endpoints.rotate(viewer.credential.accountId, id), (rotated) =>
            // Answered directly (never stored, never cached): this response is the only place the secret appears.
            sendPage(webhookSecretPage(viewer, rotated, true))
          )
        )
      )
    )

    for (const [action, done] of [
      ["disable", "webhook-disabled"],
      ["enable", "webhook-enabled"]
    ] as const) {
      yield* router.post(
        `/connection/webhooks/:id/${action}`,
        guard.form("/connection", (viewer) =>
          withEndpoint(viewer, (id) =>
            Effect.as(endpoints[action](viewer.credential.accountId, id), seeOther(`/connection?done=${done}#webhooks`))
          )
        )
      )
    }

    yield* router.get(
      "/connection/webhooks/:id/delete",
      guard.page((viewer) =>
        withEndpoint(viewer, (id) =>
          Effect.map(endpoints.find(viewer.credential.accountId, id), (endpoint) =>
            sendPage(deleteWebhookPage(viewer, endpoint))
          )
        )
      )
    )

    yield* router.post(
      "/connection/webhooks/:id/delete",
      guard.form("/connection", (viewer) =>
        withEndpoint(viewer, (id) =>
          Effect.as(
            endpoints.remove(viewer.credential.accountId, id),
            seeOther("/connection?done=webhook-deleted#webhooks")
          )
        )
      )
    )

    yield* router.get(
      "/connection/webhooks/:id/deliveries",
      guard.page((viewer, request) =>
        withEndpoint(viewer, (id) => {
          const query = new URL(request.url, "http://localhost").searchParams
          const page = { page: pageNumberOf(query.get("page"), MAX_PAGE), per_page: DEFAULT_PER_PAGE }
          return Effect.map(log.read(viewer.credential.accountId, id, page), (read) =>
            sendPage(deliveriesPage(viewer, read, { notice: query.get("done") }))
          )
        })
      )
    )

    /** After a refused resend or test: the log again, saying why. */
    const refusedOn = (viewer: Viewer, id: WebhookEndpointId, error: string) =>
      Effect.map(log.read(viewer.credential.accountId, id, { page: 1, per_page: DEFAULT_PER_PAGE }), (read) =>
        sendPage(deliveriesPage(viewer, read, { error }), 409)
      )

    yield* router.post(
      "/connection/webhooks/:id/deliveries/:delivery/resend",
      guard.form("/connection", (viewer) =>
        withEndpoint(viewer, (id) =>
          Effect.gen(function* () {
            const delivery = decodeDeliveryId((yield* HttpRouter.params)["delivery"])
            if (Option.isNone(delivery)) return notFoundPage(viewer, "delivery")
            return yield* log.resend(viewer.credential.accountId, id, delivery.value).pipe(
              Effect.as(seeOther(`${deliveriesOf(id)}?done=resent`)),
              Effect.catchTag("ValidationError", (error) => refusedOn(viewer, id, error.message))
            )
          })
        )
      )
    )

    yield* router.post(
      "/connection/webhooks/:id/test",
      guard.form("/connection", (viewer) =>
        withEndpoint(viewer, (id) =>
          log.sendTest(viewer.credential.accountId, id).pipe(
            Effect.as(seeOther(`${deliveriesOf(id)}?done=test-sent`)),
            Effect.catchTag("ValidationError", (error) => refusedOn(viewer, id, error.message))
          )
        )
      )
    )
  })
)
