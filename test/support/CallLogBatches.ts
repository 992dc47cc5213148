import { Effect } from "effect"
import { AuditLog } from "../../src/Audit/AuditLog.js"

/**
 * Waits until every read call answered so far by the test's server has had its call-log row written: reads' rows
 * are written in batches, up to READ_BATCH_DELAY (plus the insert) after their answer. For tests that look for a
 * row's absence, or at the order of reads' and changes' rows.
 */
export const readRowsWritten = Effect.flatMap(AuditLog, (log) => log.readsWritten)
