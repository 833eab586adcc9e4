import { locateA2AData, type A2AExtractOptions } from './locate-a2a-data.js';
import type { JsonObject } from './types.js';
import { AdcpWireError } from './wire-error.js';

/**
 * Extracts the AdCP response from an A2A Task, status-update event or 1.0 `StreamResponse` /
 * `SendMessageResponse` envelope (a2a-response-extraction): the envelope is unwrapped once (a
 * nested one gives `null`), the state normalised; final states give the last DataPart of
 * `artifacts[0]` (falling back to the first DataPart of `status.message.parts`), interim states the
 * first DataPart of `status.message.parts`; unknown states, missing data and DataParts over
 * `maxDataPartBytes` give `null`. The DataPart is returned unchanged (its own AdCP `status` wins
 * over the A2A state); never merge it into other objects without filtering keys.
 *
 * @throws AdcpWireError with code `wrapper_detected` when a final state's DataPart is a
 *   `{ response: {...} }` framework wrapper (a seller bug; never silently unwrapped).
 */
export function extractAdcpResponseFromA2A(input: unknown, options: A2AExtractOptions = {}): JsonObject | null {
  const location = locateA2AData(input, options);
  if (location.outcome === 'wrapper') {
    throw new AdcpWireError(
      'wrapper_detected',
      'Invalid A2A response: the DataPart holds a {response: {...}} wrapper object (a server-side bug)',
    );
  }
  return location.outcome === 'found' ? (location.data ?? null) : null;
}
