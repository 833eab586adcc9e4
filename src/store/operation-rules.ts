import { statusRank, type OperationRecord, type OperationUpdate } from './types.js';

/** Rank from which a status is final: a final operation never moves again. */
export const FINAL_RANK = 10;

/**
 * Whether `update` moves `current` forward: not out of a final status, not older than the event
 * that set the current status, not to a lower-ranked status. Shared by every OperationStore so
 * they agree; SQL stores express the same rule in their conditional UPDATE.
 */
export function isForwardUpdate(current: OperationRecord, update: OperationUpdate): boolean {
  const currentRank = statusRank(current.status);
  if (currentRank >= FINAL_RANK) return false;
  if (update.statusAt < current.statusAt) return false;
  return statusRank(update.status) >= currentRank;
}
