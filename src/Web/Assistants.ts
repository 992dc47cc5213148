import { Clock, Effect } from "effect"
import { NotFound } from "../Domain/Errors.js"
import type { UserId } from "../Domain/Ids.js"
import { READ_AND_EDIT, READ_ONLY } from "../OAuth/Scopes.js"
import { AssistantsRepo } from "./AssistantsRepo.js"

const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** The assistants (OAuth clients) a user has allowed to use their account, and a way to disconnect them. */
export class Assistants extends Effect.Service<Assistants>()("Web/Assistants", {
  dependencies: [AssistantsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* AssistantsRepo

    /** The clients with a live grant for the user, first connected first. */
    const list = Effect.fn("Assistants.list")(function* (userId: UserId) {
      return yield* repo.listLive(userId, yield* nowIso)
    })

    /**
     * Revokes every grant the user gave the client, and with them its tokens. A client without a grant for this
     * user (another user's, or one already disconnected) is not found.
     */
    const disconnect = Effect.fn("Assistants.disconnect")(function* (userId: UserId, clientId: string) {
      const revoked = yield* repo.revokeClient({ userId, clientId, now: yield* nowIso })
      if (revoked === 0) return yield* new NotFound({ message: "No such connected assistant." })
    })

    /** What the client may do on the user's account from now on: read only, or read and edit. */
    const setAccess = Effect.fn("Assistants.setAccess")(function* (
      userId: UserId,
      clientId: string,
      access: "read" | "edit"
    ) {
      const changed = yield* repo.setScope({ userId, clientId, scope: access === "edit" ? READ_AND_EDIT : READ_ONLY })
      if (changed === 0) return yield* new NotFound({ message: "No such connected assistant." })
    })

    return { list, disconnect, setAccess }
  })
}) {}
