/**
 * The AdCP A2A Profile Extension v3 (a2a-profile-extension.md): its URI, how a request activates
 * it, and the refusal codes every check of the profile reports (the official vectors'
 * `expected_error` names where the vectors give one).
 */

import { ADCP_PROFILE_URI } from './a2a-wire.js';

/** The A2A 1.0 service parameter (an HTTP header on HTTP bindings) that activates extensions. */
export const A2A_EXTENSIONS_HEADER = 'A2A-Extensions';

/** The A2A v0.3 name of the same header (the 0.3 SDKs send and read it). */
export const A2A_EXTENSIONS_HEADER_V03 = 'X-A2A-Extensions';

export const A2A_PROFILE_ERROR_CODES = [
  // Invocation (a request to the profiled interface)
  'extension_not_activated',
  'invalid_a2a_message',
  'unsupported_part_type',
  'missing_invocation_data_part',
  'multiple_invocation_dataparts',
  'invalid_invocation_shape',
  // Advertisement (the agent card)
  'invalid_agent_card',
  'extension_not_advertised',
  'extension_not_under_capabilities',
  'extension_params_not_empty',
  'invalid_agent_skill',
  'missing_get_adcp_capabilities_skill_id',
  // Response (a non-streaming SendMessage answer)
  'invalid_send_message_response',
  'adcp_task_id_metadata_duplication',
  'submitted_handler_return_not_a2a_completed',
  'missing_adcp_task_id',
] as const;
export type A2AProfileErrorCode = (typeof A2A_PROFILE_ERROR_CODES)[number];

/** A broken profile rule: the code, and a sentence that names the rule. */
export interface A2AProfileViolation {
  ok: false;
  code: A2AProfileErrorCode;
  message: string;
}

/** Most extension URIs read from one header value; past it the header is not searched further. */
const MAX_LISTED_EXTENSIONS = 64;

/**
 * True when an `A2A-Extensions` value (one header, several, or a comma-separated list, as Node
 * gives them) lists the profile URI exactly. Whitespace around list items is ignored; nothing else
 * is folded (no case change, no trailing-slash tolerance).
 */
export function isProfileActivated(value: string | readonly string[] | undefined | null): boolean {
  if (value === undefined || value === null) return false;
  const values = typeof value === 'string' ? [value] : value;
  let seen = 0;
  for (const header of values) {
    if (typeof header !== 'string') continue;
    for (const item of header.split(',')) {
      if (++seen > MAX_LISTED_EXTENSIONS) return false;
      if (item.trim() === ADCP_PROFILE_URI) return true;
    }
  }
  return false;
}

/** A violation of `code` (a helper for the checks, which return rather than throw). */
export function profileViolation(code: A2AProfileErrorCode, message: string): A2AProfileViolation {
  return { ok: false, code, message };
}
