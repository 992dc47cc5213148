import { HttpApiBuilder, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Clock, Effect, Either, Option, Schema } from "effect"
import { ApiKeys } from "../Auth/ApiKeys.js"
import { ApiKeyId, PathId } from "../Domain/Ids.js"
import { RequestBase } from "../Http/PublicUrl.js"
import { WebhookEndpoints } from "../Webhooks/Endpoints.js"
import { Assistants } from "./Assistants.js"
import { connectionPage, disconnectAssistantPage, keyCreatedPage, revokeKeyPage } from "./ConnectionPages.js"
import { PageGuard } from "./Guard.js"
import { notFoundPage, seeOther, sendPage, type Viewer } from "./Layout.js"
import { webhookSecretPage } from "./WebhookPages.js"

const decodeKeyId = Schema.decodeUnknownOption(PathId(ApiKeyId, "API key", "API key id."))

/**
 * The site-connection page and its forms:
 * - `GET /connection`: API keys, the MCP address and how to connect an assistant, the connected assistants;
 * - `POST /connection/keys`: creates a named key and shows it once;
 * - `GET /connection/keys/:id/revoke` asks, `POST` revokes one of the account's keys;
 * - `GET /connection/assistants/:clientId/revoke` asks, `POST` disconnects an assistant (its grants and tokens);
 * - `POST /connection/webhooks`: creates a webhook endpoint and shows its secret once (the endpoints' other forms
 *   are in WebhookRoutes.ts).
 * Every POST needs the session's CSRF token; another account's key or assistant is a 404.
 */
export const ConnectionRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const guard = yield* PageGuard
    const keys = yield* ApiKeys
    const assistants = yield* Assistants
    const webhooks = yield* WebhookEndpoints
    const baseOf = yield* RequestBase

    // The address as this browser reached the service (the configured one whenever PUBLIC_BASE_URL is set).
    const connection = (viewer: Viewer) =>
      Effect.all({
        keys: keys.list(viewer.credential.accountId),
        assistants: assistants.list(viewer.userId),
        webhooks: webhooks.list(viewer.credential.accountId),
        mcpUrl: Effect.map(HttpServerRequest.HttpServerRequest, (request) => `${baseOf(request)}/mcp`),
        now: Clock.currentTimeMillis
      })

    yield* router.get(
      "/connection",
      guard.page((viewer, request) =>
        Effect.gen(function* () {
          const notice = new URL(request.url, "http://localhost").searchParams.get("done")
          return sendPage(connectionPage(viewer, yield* connection(viewer), { notice }))
        })
      )
    )

    yield* router.post(
      "/connection/keys",
      guard.form("/connection", (viewer, form) =>
        Effect.gen(function* () {
          const created = yield* Effect.either(
            keys.create({
              accountId: viewer.credential.accountId,
              name: form.get("name") ?? "",
              isAdmin: false,
              readOnly: form.get("read_only") === "1"
            })
          )
          if (Either.isLeft(created)) {
            const error = `The key was not created: ${created.left.message}.`
            return sendPage(connectionPage(viewer, yield* connection(viewer), { error }), 400)
          }
          // Answered directly (never stored, never cached): this response is the only place the key ever appears.
          return sendPage(keyCreatedPage(viewer, created.right.row.name, created.right.key))
        })
      )
    )

    yield* router.post(
      "/connection/webhooks",
      guard.form("/connection", (viewer, form) =>
        Effect.gen(function* () {
          const input = { url: form.get("url") ?? "", events: form.getAll("events") }
          const created = yield* Effect.either(webhooks.create(viewer.credential.accountId, input))
          if (Either.isLeft(created)) {
            const webhook = { ...input, error: `The endpoint was not added: ${created.left.message}.` }
            return sendPage(connectionPage(viewer, yield* connection(viewer), { webhook }), 400)
          }
          // Answered directly (never stored, never cached): this response is the only place the secret appears.
          return sendPage(webhookSecretPage(viewer, created.right, false))
        })
      )
    )

    /** One of the account's keys that is not revoked yet, by the id in the path. */
    const activeKey = (viewer: Viewer) =>
      Effect.gen(function* () {
        const id = decodeKeyId((yield* HttpRouter.params)["id"])
        const own = yield* keys.list(viewer.credential.accountId)
        return Option.flatMap(id, (wanted) =>
          Option.fromNullable(own.find((key) => key.id === wanted && key.revoked_at === null))
        )
      })

    yield* router.get(
      "/connection/keys/:id/revoke",
      guard.page((viewer) =>
        Effect.map(activeKey(viewer), (key) =>
          Option.isNone(key) ? notFoundPage(viewer, "active API key") : sendPage(revokeKeyPage(viewer, key.value))
        )
      )
    )

    yield* router.get(
      "/connection/assistants/:clientId/revoke",
      guard.page((viewer) =>
        Effect.gen(function* () {
          const clientId = (yield* HttpRouter.params)["clientId"] ?? ""
          const assistant = (yield* assistants.list(viewer.userId)).find((row) => row.client_id === clientId)
          if (assistant === undefined) return notFoundPage(viewer, "connected assistant")
          return sendPage(disconnectAssistantPage(viewer, assistant))
        })
      )
    )

    yield* router.post(
      "/connection/keys/:id/revoke",
      guard.form("/connection", (viewer, _form) =>
        Effect.gen(function* () {
          const id = decodeKeyId((yield* HttpRouter.params)["id"])
          const own = yield* keys.list(viewer.credential.accountId)
          if (Option.isNone(id) || !own.some((key) => key.id === id.value)) return notFoundPage(viewer, "API key")
          yield* keys.revoke(id.value)
          return seeOther("/connection?done=key-revoked#keys")
        })
      )
    )

    yield* router.post(
      "/connection/assistants/:clientId/access",
      guard.form("/connection", (viewer, form) =>
        Effect.gen(function* () {
          const clientId = (yield* HttpRouter.params)["clientId"] ?? ""
          const access = form.get("access")
          if (access !== "read" && access !== "edit") {
            const error = "Choose Read only or Read and edit for the assistant."
            return sendPage(connectionPage(viewer, yield* connection(viewer), { error }), 400)
          }
          return yield* assistants.setAccess(viewer.userId, clientId, access).pipe(
            Effect.as(seeOther(`/connection?done=assistant-${access}#assistants`)),
            Effect.catchTag("NotFound", () => Effect.succeed(notFoundPage(viewer, "connected assistant")))
          )
        })
      )
    )

    yield* router.post(
      "/connection/assistants/:clientId/revoke",
      guard.form("/connection", (viewer, _form) =>
        Effect.gen(function* () {
          const clientId = (yield* HttpRouter.params)["clientId"] ?? ""
          return yield* assistants.disconnect(viewer.userId, clientId).pipe(
            Effect.as(seeOther("/connection?done=assistant-disconnected#assistants")),
            Effect.catchTag("NotFound", () => Effect.succeed(notFoundPage(viewer, "connected assistant")))
          )
        })
      )
    )
  })
)
