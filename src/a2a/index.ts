import type { AdcpTransport, TransportOptions } from '../transport/transport.js';
import { A2ATransport } from './a2a-transport.js';

export { A2ATransport, type A2ACallOptions } from './a2a-transport.js';
export type { A2ATaskResult } from './to-task-result.js';
export type { CheckedFile } from './check-files.js';
export { discoverCard, cardCandidates, MAX_CARD_BYTES, type CardLookup } from './discover-card.js';
export { selectEndpoint, listEndpoints, type A2AEndpoint, type A2AWire } from './select-interface.js';
export { ADCP_PROFILE_URI } from '../core/a2a-wire.js';

/** Creates the A2A transport AdcpClient uses for `protocol: 'a2a'` (both wires, one client). */
export function createA2ATransport(options: TransportOptions): AdcpTransport {
  return new A2ATransport(options);
}
