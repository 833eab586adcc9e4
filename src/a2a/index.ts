import type { AdcpTransport, TransportOptions } from '../client/transport.js';
import { A2ATransport } from './a2a-transport.js';

export { A2ATransport, type A2ACallOptions } from './a2a-transport.js';
export { discoverCard, cardCandidates, type CardLookup } from './discover-card.js';
export { selectEndpoint, listEndpoints, type A2AEndpoint, type A2AWire } from './select-interface.js';

/** Creates the A2A transport AdcpClient uses for `protocol: 'a2a'` (both wires, one client). */
export function createA2ATransport(options: TransportOptions): AdcpTransport {
  return new A2ATransport(options);
}
