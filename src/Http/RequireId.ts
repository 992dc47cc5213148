import { Effect, Option } from "effect"
import { NotFound } from "../Domain/Errors.js"

/** A path id that cannot name a record (`PathId` decoded it to `None`) is answered like a missing one. */
export const requireId = <A>(id: Option.Option<A>, what: string) =>
  Option.match(id, {
    onNone: () => Effect.fail(new NotFound({ message: `No ${what} with that id.` })),
    onSome: Effect.succeed
  })
