import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

/**
 * Runs a test's own HTTP `server` on 127.0.0.1 (a free port) for the scope, and closes it with every connection when
 * the scope closes; its port.
 */
export const listenOnLoopback = (server: Server) =>
  Effect.gen(function* () {
    // A client that gives up mid-answer resets the connection: that is expected here.
    server.on("clientError", (_error, socket) => socket.destroy())
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return (server.address() as AddressInfo).port
  })
