import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import { CurrentCredential } from "../Api/Middleware.js"
import { Api } from "../Api.js"
import { ArticleEdits } from "../Articles/Edits.js"
import { ArticleRevisions } from "../Articles/Revisions.js"
import { articleWrites, requestOf } from "../Articles/WriteHandlers.js"
import { RestoreRevisionPayload } from "../Domain/ArticleEdits.js"
import { Idempotency } from "../Idempotency/Idempotency.js"

const encodeRestore = Schema.encodeSync(RestoreRevisionPayload)

export const RevisionsHttpLive = HttpApiBuilder.group(Api, "revisions", (handlers) =>
  Effect.gen(function* () {
    const revisions = yield* ArticleRevisions
    const edits = yield* ArticleEdits
    const { editArticle } = yield* articleWrites

    return handlers
      .handle("listRevisions", ({ path, urlParams }) =>
        Effect.flatMap(CurrentCredential, (credential) => revisions.list(credential, path.id, urlParams))
      )
      .handle("getRevision", ({ path }) =>
        Effect.flatMap(CurrentCredential, (credential) =>
          Effect.map(revisions.get(credential, path.id, path.n), (data) => ({ data }))
        )
      )
      .handle("restoreRevision", ({ path, payload, urlParams, headers }) =>
        editArticle(
          {
            reason: payload.reason,
            headers,
            dryRun: urlParams.dry_run,
            // The revision is part of the request: the same key for another revision is another request.
            request: requestOf("POST restore", path.id, urlParams, { revision: path.n, ...encodeRestore(payload) })
          },
          (context) => edits.restore(context, path.id, path.n),
          (context) => edits.previewRestore(context, path.id, path.n)
        )
      )
  })
).pipe(Layer.provide([ArticleRevisions.Default, ArticleEdits.Default, Idempotency.Default]))
