/** The AdCP A2A profile URI and what a 1.0 caller sends to activate it (test helper). */
export const PROFILE_URI = 'https://adcontextprotocol.org/extensions/adcp/v3';

/** Headers of an activated raw 1.0 JSON-RPC request. */
export const ACTIVATED_HEADERS = { 'A2A-Version': '1.0', 'A2A-Extensions': PROFILE_URI } as const;

/** Per-call options of the official 1.x client that activate the profile (`A2A-Extensions`). */
export const ACTIVATED_CALL = { serviceParameters: { 'A2A-Extensions': PROFILE_URI } };
