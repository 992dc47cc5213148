import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Inserts one row into `table` (always a constant table name), for its effect alone: nothing is read back, and a
 * database failure is a defect at the repository boundary.
 */
export const insertRow = (sql: SqlClient.SqlClient, table: string, row: Readonly<Record<string, unknown>>) =>
  sql`insert into ${sql(table)} ${sql.insert(row)}`.pipe(Effect.asVoid, Effect.orDie)
