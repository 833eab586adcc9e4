import { ControllerError } from './test-controller.js';

/**
 * The state machines a seller enforces in production and through `comply_test_controller` alike
 * (comply-test-controller.md, "Design decisions" 1): for each status, where it may go next.
 * A status forced to itself is allowed everywhere (the controller's `force_*` are idempotent).
 */
const MEDIA_BUY: Record<string, readonly string[]> = {
  // enums/media-buy-status.json; `rejected` only from the two pending states.
  pending_creatives: ['pending_start', 'active', 'paused', 'rejected', 'canceled'],
  pending_start: ['pending_creatives', 'active', 'paused', 'rejected', 'canceled'],
  active: ['paused', 'completed', 'canceled'],
  paused: ['active', 'completed', 'canceled'],
  completed: [],
  rejected: [],
  canceled: [],
};

const CREATIVE: Record<string, readonly string[]> = {
  // enums/creative-status.json; archived leaves only by a buyer's re-sync (not a forced status).
  processing: ['pending_review', 'approved', 'rejected', 'archived'],
  pending_review: ['approved', 'rejected', 'processing', 'archived'],
  approved: ['pending_review', 'suspended', 'rejected', 'archived'],
  suspended: ['approved', 'rejected', 'archived'],
  rejected: ['processing', 'archived'],
  archived: [],
};

const ACCOUNT: Record<string, readonly string[]> = {
  // enums/account-status.json: rejected and closed are terminal.
  pending_approval: ['active', 'rejected'],
  active: ['suspended', 'payment_required', 'closed'],
  suspended: ['active', 'closed'],
  payment_required: ['active', 'suspended', 'closed'],
  rejected: [],
  closed: [],
};

export const LIFECYCLES = { media_buy: MEDIA_BUY, creative: CREATIVE, account: ACCOUNT } as const;
export type LifecycleName = keyof typeof LIFECYCLES;

/** Whether `to` is a status of that lifecycle. */
export function isLifecycleStatus(lifecycle: LifecycleName, to: unknown): to is string {
  return typeof to === 'string' && Object.hasOwn(LIFECYCLES[lifecycle], to);
}

/**
 * Checks one transition: throws ControllerError `INVALID_PARAMS` for an unknown status and
 * `INVALID_TRANSITION` (with the current state) for a move the lifecycle does not allow.
 */
export function assertTransition(lifecycle: LifecycleName, from: string, to: unknown): string {
  if (!isLifecycleStatus(lifecycle, to)) {
    throw new ControllerError(
      'INVALID_PARAMS',
      `status must be one of ${Object.keys(LIFECYCLES[lifecycle]).join(', ')}.`,
    );
  }
  if (from === to) return to;
  const next = LIFECYCLES[lifecycle][from] ?? [];
  if (!next.includes(to)) {
    throw new ControllerError(
      'INVALID_TRANSITION',
      `A ${lifecycle.replace('_', ' ')} cannot go from ${from} to ${to}.`,
      {
        currentState: from,
      },
    );
  }
  return to;
}
