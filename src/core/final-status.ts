import { FINAL_STATUSES } from './types.js';

/** A status after which an AdCP task never changes. */
export type FinalStatus = (typeof FINAL_STATUSES)[number];

const FINAL: ReadonlySet<unknown> = new Set(FINAL_STATUSES);

/**
 * True for the four final AdCP statuses (`FINAL_STATUSES`: completed, failed, canceled,
 * rejected). Everything else, unknown strings included, may still move.
 */
export function isFinalStatus(status: unknown): status is FinalStatus {
  return FINAL.has(status);
}
