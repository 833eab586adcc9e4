import { randomUUID } from 'node:crypto';

/** The AdCP A2A profile URI and what a 1.0 caller sends to activate it (test helper). */
export const PROFILE_URI = 'https://adcontextprotocol.org/extensions/adcp/v3';

/** Headers of an activated raw 1.0 JSON-RPC request. */
export const ACTIVATED_HEADERS = { 'A2A-Version': '1.0', 'A2A-Extensions': PROFILE_URI } as const;

/** Per-call options of the official 1.x client that activate the profile (`A2A-Extensions`). */
export const ACTIVATED_CALL = { serviceParameters: { 'A2A-Extensions': PROFILE_URI } };

/** A raw A2A 1.0 SendMessage body for a profile-activated call: one DataPart `{ skill, input }`. */
export function sendMessageBody(
  skill: string,
  input: Record<string, unknown>,
  messageId: string = randomUUID(),
): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId, role: 'ROLE_USER', parts: [{ data: { skill, input } }] } },
  });
}
