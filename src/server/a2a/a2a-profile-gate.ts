import { ADCP_PROFILE_URI } from '../../core/a2a-wire.js';
import type { IncomingMessage } from 'node:http';
import { isProfileActivated, type A2AProfileErrorCode } from '../../core/a2a-profile.js';
import { checkProfileRequest, type ProfileInvocationParse } from '../../core/a2a-profile-invocation.js';
import type { JsonObject } from '../../core/types.js';
import type { A2AWire } from '../../core/a2a-wire.js';

/**
 * Which profile rules an A2A interface enforces.
 * - `profile`: the card marks the profile `required`; every 1.0 request must activate it and every
 *   1.0 message is a strict `{ skill, input }` invocation. v0.3 requests (whose clients predate the
 *   1.0 header) need no activation; one that does not activate the profile may send the 3.0/3.1
 *   `{ skill, parameters }` shape (the incumbent SDK's client), one that activates it is held to
 *   the profile exactly.
 * - `legacy`: a separate interface whose card does not mark the profile required, for callers that
 *   send `{ skill, parameters }` without activating it (the incumbent SDK's client). An activated
 *   request there is held to the profile exactly.
 */
export type ProfileMode = 'profile' | 'legacy';

/** The native A2A error that answers each broken rule (JSON-RPC code and google.rpc.ErrorInfo reason). */
const NATIVE_ERRORS: Record<A2AProfileErrorCode, readonly [number, string]> = {
  extension_not_activated: [-32008, 'EXTENSION_SUPPORT_REQUIRED'],
  unsupported_part_type: [-32005, 'CONTENT_TYPE_NOT_SUPPORTED'],
  invalid_a2a_message: [-32602, 'INVALID_PARAMS'],
  missing_invocation_data_part: [-32602, 'INVALID_PARAMS'],
  multiple_invocation_dataparts: [-32602, 'INVALID_PARAMS'],
  invalid_invocation_shape: [-32602, 'INVALID_PARAMS'],
  invalid_agent_card: [-32603, 'INTERNAL_ERROR'],
  extension_not_advertised: [-32603, 'INTERNAL_ERROR'],
  extension_not_under_capabilities: [-32603, 'INTERNAL_ERROR'],
  extension_params_not_empty: [-32603, 'INTERNAL_ERROR'],
  invalid_agent_skill: [-32603, 'INTERNAL_ERROR'],
  missing_get_adcp_capabilities_skill_id: [-32603, 'INTERNAL_ERROR'],
  invalid_send_message_response: [-32603, 'INTERNAL_ERROR'],
  adcp_task_id_metadata_duplication: [-32603, 'INTERNAL_ERROR'],
  submitted_handler_return_not_a2a_completed: [-32603, 'INTERNAL_ERROR'],
  missing_adcp_task_id: [-32603, 'INTERNAL_ERROR'],
};

/** A JSON-RPC `error` member for a broken profile rule: the A2A code, the rule in message and ErrorInfo. */
export function profileRpcError(rule: A2AProfileErrorCode, message: string): JsonObject {
  const [code, reason] = NATIVE_ERRORS[rule];
  return {
    code,
    message: `${rule}: ${message}`,
    data: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason,
        domain: 'a2a-protocol.org',
        metadata: { profile_error: rule, extension: ADCP_PROFILE_URI },
      },
    ],
  };
}

/** True when the request activates the profile (`A2A-Extensions`, or the v0.3 `X-A2A-Extensions`). */
export function requestActivatesProfile(req: IncomingMessage): boolean {
  return isProfileActivated(req.headers['a2a-extensions']) || isProfileActivated(req.headers['x-a2a-extensions']);
}

/** Whether a non-message request (`GetTask`, `CancelTask`) may pass on this interface. */
export function activationRefusal(req: IncomingMessage, wire: A2AWire, mode: ProfileMode): JsonObject | undefined {
  if (mode !== 'profile' || wire !== '1.0' || isProfileActivated(req.headers['a2a-extensions'])) return undefined;
  return profileRpcError(
    'extension_not_activated',
    `this interface requires the AdCP A2A profile: send the header A2A-Extensions: ${ADCP_PROFILE_URI}`,
  );
}

/**
 * Reads the invocation of a send or stream under the interface's rules. `legacyUrl`, when given,
 * is named in the refusal of a `parameters` message on the profiled interface, so a caller of the
 * incumbent shape learns where it is served.
 */
export function readInvocation(
  req: IncomingMessage,
  wire: A2AWire,
  mode: ProfileMode,
  message: unknown,
  legacyUrl?: string,
): ProfileInvocationParse {
  const activated = requestActivatesProfile(req);
  const parsed = checkProfileRequest(req.headers, message, {
    required: mode === 'profile' && wire === '1.0',
    // A v0.3 caller that does not activate the profile is the 3.0/3.1-era client (`{ skill,
    // parameters }`): served on the printed URL too. 1.0 and activated requests stay exact.
    legacyParameters: (mode === 'legacy' || wire === '0.3') && !activated,
  });
  if (!parsed.ok && parsed.code === 'invalid_invocation_shape' && legacyUrl !== undefined && mode === 'profile') {
    const hint = ` (callers of the legacy { skill, parameters } shape: ${legacyUrl}, whose card does not require the profile)`;
    if (parsed.message.includes("'parameters'")) return { ...parsed, message: parsed.message + hint };
  }
  return parsed;
}
