import type { PgDatabase } from './pg-database.js';

/**
 * Runs `sql`, a DELETE of at most `batch` rows picked with `FOR UPDATE SKIP LOCKED` (so writers
 * never wait on a sweep), until a batch comes back short. Returns how many rows it removed.
 * Bounded: 10,000 batches per call.
 */
export async function sweepInBatches(
  db: PgDatabase,
  label: string,
  sql: string,
  values: unknown[],
  batch: number,
): Promise<number> {
  let removed = 0;
  for (let round = 0; round < 10_000; round += 1) {
    const result = await db.query(label, sql, values);
    removed += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < batch) break;
  }
  return removed;
}
