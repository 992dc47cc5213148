import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * `GET /healthz`: the process is up. `GET /readyz`: the database answers within two seconds. Neither needs
 * credentials nor counts against a limit, so load balancers and orchestrators can poll them.
 */
export const HealthRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* router.get("/healthz", Effect.succeed(HttpServerResponse.unsafeJson({ status: "ok" })))
    yield* router.get(
      "/readyz",
      sql`select 1`.pipe(
        Effect.timeout("2 seconds"),
        Effect.as(HttpServerResponse.unsafeJson({ status: "ready" })),
        Effect.catchAllCause((cause) =>
          Effect.logWarning("Readiness check failed", cause).pipe(
            Effect.as(
              HttpServerResponse.unsafeJson(
                { status: "unavailable", message: "The database is not reachable." },
                { status: 503 }
              )
            )
          )
        )
      )
    )
  })
)
