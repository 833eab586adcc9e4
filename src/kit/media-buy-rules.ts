import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import { adcpError } from '../server/tools/adcp-error.js';
import type { AdcpToolError } from '../server/tools/tool-error.js';

/**
 * The media buy's own rules, beside its state machine (src/server/tools/lifecycles.ts): which statuses
 * a buyer's `update_media_buy` may act on, and what each buyer action does. One home for the
 * errors the spec names for them (`NOT_CANCELLABLE`, `INVALID_STATE`, `PACKAGE_NOT_FOUND`, ...).
 */

/**
 * The id of a buy's `n`th package: the buy's id and the number, so no two buys of a seller share
 * a package id (sync_creatives `assignments` and delivery name a package by its id alone:
 * decision 0316).
 */
export function packageIdOf(mediaBuyId: string, n: number): string {
  return `${mediaBuyId}_pkg_${n}`;
}

/** Terminal statuses: nothing moves a media buy out of them. */
export const TERMINAL_STATUSES: readonly string[] = ['completed', 'rejected', 'canceled'];

/** `valid_actions` of a media buy in a status (enums: pause, resume, cancel, update_budget, ...). */
export function validActions(status: string): string[] {
  // The 3.0 vocabulary (a subset of 3.1's): an answer must read under either release.
  const editing = ['update_budget', 'update_dates', 'update_packages', 'sync_creatives'];
  switch (status) {
    case 'pending_creatives':
    case 'pending_start':
    case 'active':
      return ['pause', 'cancel', ...editing, 'add_packages'];
    case 'paused':
      return ['resume', 'cancel', ...editing];
    default:
      return [];
  }
}

/** The status a live media buy has from its creatives and flight: no creative yet, waiting for its start, or running. */
export function liveStatus(hasCreatives: boolean, startMs: number, now: number): string {
  if (!hasCreatives) return 'pending_creatives';
  return startMs > now ? 'pending_start' : 'active';
}

/** `update_media_buy` on a buy in a terminal status (other than a repeated cancel). */
export function notUpdatable(status: string): AdcpToolError {
  return adcpError('INVALID_STATE', {
    message: `The media buy is ${status}; it can no longer be updated.`,
    field: 'media_buy_id',
    details: { current_status: status },
  });
}

/** A cancel of a buy that is already terminal. */
export function notCancellable(status: string): AdcpToolError {
  return adcpError('NOT_CANCELLABLE', {
    message: `The media buy is ${status}; it cannot be canceled in its current state.`,
    field: 'canceled',
    details: { current_status: status },
  });
}

/** Milliseconds of a `start_time` (`asap` is now) or `end_time`; NaN when unreadable. */
export function timeOf(value: unknown, now: number): number {
  return value === 'asap' ? now : typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/**
 * The flight's business rules the schema cannot state: a start not in the past, and `end_time`
 * after `start_time` (error-compliance storyboard, reversed dates).
 */
export function checkFlight(start: unknown, end: unknown, now: number): void {
  const startMs = timeOf(start, now);
  const endMs = timeOf(end, now);
  // A start already past (more than a day, for clock skew and time zones) cannot be booked
  // (schema-validation storyboard, past_start_rejection: INVALID_REQUEST).
  if (start !== 'asap' && Number.isFinite(startMs) && startMs < now - 86_400_000) {
    throw adcpError('INVALID_REQUEST', {
      message: 'start_time is in the past; use a future time or asap.',
      field: 'start_time',
    });
  }
  if (Number.isFinite(startMs) && Number.isFinite(endMs) && endMs <= startMs) {
    throw adcpError('VALIDATION_ERROR', { message: 'end_time must be after start_time.', field: 'end_time' });
  }
}

/**
 * The kit's default measurement-terms rule: a billing variance of 0 % cannot be honoured against
 * third-party measurement, and a vendor other than one the product names is not one the seller
 * reconciles with. Returns the reason, or true.
 */
export function defaultAcceptTerms(terms: JsonObject, product: JsonObject): true | string {
  const billing = isJsonObject(terms.billing_measurement) ? terms.billing_measurement : undefined;
  if (billing === undefined) return true;
  if (billing.max_variance_percent === 0) {
    return 'A max_variance_percent of 0 cannot be honoured against third-party measurement; 10 is the lowest this seller accepts.';
  }
  const vendor = isJsonObject(billing.vendor) ? billing.vendor.domain : undefined;
  const offered = isJsonObject(product.measurement_terms) ? product.measurement_terms.billing_measurement : undefined;
  const offeredVendor = isJsonObject(offered) && isJsonObject(offered.vendor) ? offered.vendor.domain : undefined;
  if (typeof vendor === 'string' && typeof offeredVendor === 'string' && vendor !== offeredVendor) {
    return `This product bills on ${offeredVendor} measurement, not ${vendor}.`;
  }
  return true;
}
