import { readFileSync } from "node:fs"
import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Option, Schema } from "effect"

/** Where a running `cbs serve` serves its embedded database over the PostgreSQL wire protocol (loopback only). */
const Address = Schema.Struct({ host: Schema.String, port: Schema.Int })
export type Address = typeof Address.Type

/**
 * Who holds the lock: the process, the `cbs` command it runs, and its command line where the system shows it. A
 * server adds where other `cbs` commands reach its database, once it is migrated.
 */
const Holder = Schema.Struct({
  pid: Schema.Int,
  command: Schema.String,
  cmdline: Schema.optional(Schema.String),
  address: Schema.optional(Address)
})
type Holder = typeof Holder.Type

/** Another process has the embedded database open; this one must not open it too. */
export class DatabaseInUse extends Schema.TaggedError<DatabaseInUse>()("DatabaseInUse", {
  message: Schema.String,
  /** The process holding it, when it runs. */
  holder: Schema.optional(Holder)
}) {}

const decodeHolder = Schema.decodeUnknownOption(Schema.parseJson(Holder))

/** The lock file, beside the database's own folder `DATA_DIR/pg`. */
export const lockFileName = "pg.lock"

/** A process's command line, on systems that show it in /proc (Linux); undefined elsewhere or when it has ended. */
const commandLineOf = (pid: number | "self"): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
  } catch {
    return undefined
  }
}

/**
 * Whether the process that took the lock still runs. A pid that is gone, or is now this very process (a container
 * restarted with the same pid), or runs another command line (the pid was reused), left a stale lock.
 */
const isRunning = (holder: Holder): boolean => {
  if (holder.pid === process.pid) return false
  try {
    process.kill(holder.pid, 0)
  } catch (error) {
    // EPERM: the process exists but belongs to another user, so it is running.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false
  }
  const now = holder.cmdline === undefined ? undefined : commandLineOf(holder.pid)
  return now === undefined || now === holder.cmdline
}

const inUse = (dataDir: string, holder: Holder) =>
  new DatabaseInUse({
    message:
      holder.command === "serve"
        ? `the embedded database in ${dataDir} is in use by cbs serve (pid ${holder.pid}); stop it first`
        : `the embedded database in ${dataDir} is in use by cbs ${holder.command} (pid ${holder.pid}); wait for it to finish, or stop it first`,
    holder
  })

const isReason = (reason: string) => (error: PlatformError) => error._tag === "SystemError" && error.reason === reason

const holderIn = (fs: FileSystem.FileSystem, file: string) =>
  fs.readFileString(file).pipe(
    Effect.map(decodeHolder),
    Effect.catchIf(isReason("NotFound"), () => Effect.succeed(Option.none<Holder>()))
  )

/** The process that holds the lock on `dataDir` now, if one does and it runs. */
export const runningHolder = (dataDir: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    return Option.filter(yield* holderIn(fs, path.join(dataDir, lockFileName)), isRunning)
  })

/**
 * Adds to this process's lock where its server serves the database, until the scope closes, so that other `cbs`
 * commands connect to it rather than stop at the lock. The lock is rewritten whole under a private name and renamed
 * into place: a reader sees the old lock or the new one, never a half-written one. A lock that outlives its process
 * (killed) is found stale by its pid as before, address and all.
 */
export const publishAddress = (dataDir: string, address: Address) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const lockFile = path.join(dataDir, lockFileName)
    const current = yield* holderIn(fs, lockFile)
    if (Option.isNone(current) || current.value.pid !== process.pid) return
    const { address: _, ...unpublished } = current.value
    const rewrite = (holder: Holder) => {
      const draft = `${lockFile}.${process.pid}.address`
      return fs.writeFileString(draft, JSON.stringify(holder)).pipe(Effect.zipRight(fs.rename(draft, lockFile)))
    }
    yield* Effect.acquireRelease(rewrite({ ...unpublished, address }), () => rewrite(unpublished).pipe(Effect.ignore))
  })

/**
 * Makes this process the one owner of the embedded database in `dataDir` until the scope closes, or fails with
 * `DatabaseInUse` (naming the holder) before anything in the directory is opened. PGlite has no lock of its own: two
 * processes on the same files each write over what the other wrote. `command` is the `cbs` command that opens it.
 *
 * The lock is a file holding the owner's pid, written whole under a private name and then hard-linked into place:
 * the link fails when the file exists, so of two processes starting together exactly one gets it, and nobody ever
 * reads a half-written lock. A lock left by a process that no longer runs (killed, or the machine restarted) is
 * taken over.
 */
export const lockDataDir = (dataDir: string, command: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const lockFile = path.join(dataDir, lockFileName)
    const draft = `${lockFile}.${process.pid}`
    const aside = `${lockFile}.stale.${process.pid}`
    const cmdline = commandLineOf("self")
    const mine: Holder = { pid: process.pid, command, ...(cmdline === undefined ? {} : { cmdline }) }
    const running = (holder: Option.Option<Holder>) => Option.filter(holder, isRunning)

    /**
     * Moves a stale lock aside. The move is atomic and what was moved is looked at again: if another process had
     * replaced the stale lock with its own in the meantime, that lock is put back and it keeps the database.
     */
    const moveStaleAside = Effect.gen(function* () {
      yield* fs.rename(lockFile, aside).pipe(Effect.catchIf(isReason("NotFound"), () => Effect.void))
      const moved = running(yield* holderIn(fs, aside))
      if (Option.isSome(moved)) {
        yield* fs.link(aside, lockFile).pipe(Effect.catchIf(isReason("AlreadyExists"), () => Effect.void))
        return yield* inUse(dataDir, moved.value)
      }
    }).pipe(Effect.ensuring(fs.remove(aside).pipe(Effect.ignore)))

    const take = (attempts: number): Effect.Effect<void, DatabaseInUse | PlatformError> =>
      fs.link(draft, lockFile).pipe(
        Effect.catchIf(isReason("AlreadyExists"), () =>
          Effect.gen(function* () {
            const holder = running(yield* holderIn(fs, lockFile))
            if (Option.isSome(holder)) return yield* inUse(dataDir, holder.value)
            if (attempts === 0) {
              return yield* new DatabaseInUse({
                message: `the embedded database in ${dataDir} is locked by ${lockFile}, which could not be taken over; remove that file if no cbs command runs`
              })
            }
            yield* moveStaleAside
            return yield* take(attempts - 1)
          })
        )
      )

    yield* fs.makeDirectory(dataDir, { recursive: true })
    yield* Effect.acquireRelease(
      fs
        .writeFileString(draft, JSON.stringify(mine))
        .pipe(Effect.zipRight(take(3)), Effect.ensuring(fs.remove(draft).pipe(Effect.ignore))),
      // Only our own lock is removed.
      () =>
        holderIn(fs, lockFile).pipe(
          Effect.flatMap((holder) =>
            Option.exists(holder, (h) => h.pid === process.pid) ? fs.remove(lockFile) : Effect.void
          ),
          Effect.ignore
        )
    )
  }).pipe(Effect.withSpan("DataDirLock.lock"))
