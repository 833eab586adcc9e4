import { ADCP_PROFILE_URI } from './a2a-wire.js';
import { profileViolation, isProfileActivated, type A2AProfileViolation } from './a2a-profile.js';
import { isPlainObject } from './plain-object.js';
import type { JsonObject } from './types.js';
import { invocationParams } from './a2a-wire.js';

/** A profile invocation read from a Message: the skill, its input, and the Message's A2A ids. */
export interface ProfileInvocation {
  ok: true;
  skill: string;
  input: JsonObject;
  messageId: string;
  contextId?: string;
  taskId?: string;
  /** Which member carried the input: always `input` under the profile; `parameters` only in legacy mode. */
  inputMember: 'input' | 'parameters';
}

export type ProfileInvocationParse = ProfileInvocation | A2AProfileViolation;

export interface ParseInvocationOptions {
  /**
   * Legacy mode (an interface that does not require the profile, for callers that do not activate
   * it): the DataPart may carry `parameters` instead of `input` (never both, never neither).
   * Every other rule still holds.
   */
  legacyParameters?: boolean;
}

/** Most Parts read from one Message (the profile: bound the number of Parts before parsing). */
export const MAX_INVOCATION_PARTS = 16;
/** Longest `skill`, `messageId`, `contextId` or `taskId` accepted. */
const MAX_ID_LENGTH = 256;

type PartKind = 'text' | 'data' | 'file' | 'unknown' | 'malformed';

/**
 * What a Part is, on either wire: v0.3 says so in `kind`; a 1.0 Part is the one content member it
 * sets (`text`, `data`, `url`/`raw` for files). A Part that sets two is malformed (A2A 1.0 oneof).
 */
function partKind(part: unknown): PartKind {
  if (!isPlainObject(part)) return 'malformed';
  const kind = part['kind'];
  if (kind !== undefined) {
    if (kind === 'text') return typeof part['text'] === 'string' ? 'text' : 'malformed';
    if (kind === 'data') return 'data';
    if (kind === 'file') return 'file';
    return 'unknown';
  }
  const present = ['text', 'data', 'url', 'raw', 'file'].filter((m) => part[m] !== undefined && part[m] !== null);
  if (present.length !== 1) return present.length === 0 ? 'unknown' : 'malformed';
  if (present[0] === 'text') return typeof part['text'] === 'string' ? 'text' : 'malformed';
  return present[0] === 'data' ? 'data' : 'file';
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value.length <= MAX_ID_LENGTH;
}

/**
 * Reads an AdCP invocation from an A2A Message under the profile (a2a-profile-extension.md,
 * "Invocation message"), on either wire: a `messageId`; Parts that are TextParts (advisory: never
 * read, never merged into `input`) and exactly one DataPart whose `data` has exactly the members
 * `skill` (non-empty string) and `input` (object). Refuses, with the rule's code: a missing
 * `messageId` or malformed Message (`invalid_a2a_message`), a FilePart or unknown Part
 * (`unsupported_part_type`), no DataPart (`missing_invocation_data_part`), a second DataPart
 * (`multiple_invocation_dataparts`, never picking one), and `parameters`, a missing `input` or any
 * other member (`invalid_invocation_shape`).
 */
export function parseProfileInvocation(message: unknown, options: ParseInvocationOptions = {}): ProfileInvocationParse {
  if (!isPlainObject(message))
    return profileViolation('invalid_a2a_message', 'params.message must be an A2A Message object');
  if (!isId(message['messageId'])) {
    return profileViolation('invalid_a2a_message', 'an A2A Message must carry a non-empty string messageId');
  }
  const parts = message['parts'];
  if (!Array.isArray(parts) || parts.length === 0) {
    return profileViolation('invalid_a2a_message', 'an A2A Message must carry a non-empty parts array');
  }
  if (parts.length > MAX_INVOCATION_PARTS) {
    return profileViolation(
      'invalid_a2a_message',
      `an invocation Message carries at most ${MAX_INVOCATION_PARTS} Parts`,
    );
  }
  for (const id of ['contextId', 'taskId'] as const) {
    if (message[id] !== undefined && message[id] !== '' && !isId(message[id])) {
      return profileViolation('invalid_a2a_message', `${id} must be a string of at most ${MAX_ID_LENGTH} characters`);
    }
  }
  const dataParts: JsonObject[] = [];
  for (const part of parts) {
    const kind = partKind(part);
    if (kind === 'malformed') {
      return profileViolation(
        'invalid_a2a_message',
        'every Part must set exactly one content member (text, data, url or raw)',
      );
    }
    if (kind === 'file' || kind === 'unknown') {
      return profileViolation(
        'unsupported_part_type',
        'the AdCP v3 profile takes TextParts and one DataPart only; FileParts and other Parts are outside it (put resource references in the task input)',
      );
    }
    if (kind === 'data') dataParts.push(part as JsonObject);
  }
  if (dataParts.length === 0) {
    return profileViolation(
      'missing_invocation_data_part',
      'the Message carries no { skill, input } DataPart (text is never an AdCP invocation)',
    );
  }
  if (dataParts.length > 1) {
    return profileViolation(
      'multiple_invocation_dataparts',
      'the Message must carry exactly one invocation DataPart; a second one is ambiguous and is not chosen between',
    );
  }
  const shaped = readInvocationData(dataParts[0]?.['data'], options);
  if (!shaped.ok) return shaped;
  const out: ProfileInvocation = { ok: true, ...shaped.value, messageId: message['messageId'] };
  if (isId(message['contextId'])) out.contextId = message['contextId'];
  if (isId(message['taskId'])) out.taskId = message['taskId'];
  return out;
}

function readInvocationData(
  data: unknown,
  options: ParseInvocationOptions,
): { ok: true; value: Pick<ProfileInvocation, 'skill' | 'input' | 'inputMember'> } | A2AProfileViolation {
  if (!isPlainObject(data))
    return profileViolation('invalid_invocation_shape', 'the DataPart data must be an object { skill, input }');
  const skill = data['skill'];
  if (typeof skill !== 'string' || skill === '' || skill.length > MAX_ID_LENGTH) {
    return profileViolation(
      'invalid_invocation_shape',
      'skill must be a non-empty string: the AgentSkill.id (the AdCP task name)',
    );
  }
  const legacy = options.legacyParameters === true;
  const hasInput = Object.hasOwn(data, 'input');
  const hasParameters = Object.hasOwn(data, 'parameters');
  if (hasParameters && !legacy) {
    return profileViolation(
      'invalid_invocation_shape',
      "'parameters' is not an alias for 'input' in the AdCP v3 profile: send { skill, input }",
    );
  }
  if (hasInput && hasParameters) {
    return profileViolation('invalid_invocation_shape', "the DataPart carries both 'input' and 'parameters'; send one");
  }
  const member = hasParameters ? 'parameters' : 'input';
  if (!hasInput && !hasParameters) {
    return profileViolation('invalid_invocation_shape', "the DataPart must carry 'input', the task request object");
  }
  const extra = Object.keys(data).filter((key) => key !== 'skill' && key !== member);
  if (extra.length > 0) {
    return profileViolation(
      'invalid_invocation_shape',
      `the invocation object has exactly two members, skill and ${member}; got also ${extra.slice(0, 3).join(', ')}`,
    );
  }
  const input = data[member];
  if (!isPlainObject(input))
    return profileViolation('invalid_invocation_shape', `${member} must be a JSON object (the task request)`);
  return { ok: true, value: { skill, input, inputMember: member } };
}

export interface InvocationMessageOptions {
  messageId: string;
  wire: '1.0' | '0.3';
  contextId?: string | undefined;
  /** Continue this A2A task (after `TASK_STATE_INPUT_REQUIRED`): sent with a new `messageId`. */
  taskId?: string | undefined;
  /** A display-only TextPart; it never carries information beyond the DataPart. */
  advisoryText?: string | undefined;
}

/**
 * The Message of one profile invocation: an optional advisory TextPart, then the one DataPart
 * `{ skill, input }`, in the shape of `wire` (1.0 kind-less parts and `ROLE_USER`, v0.3 `kind`s).
 */
export function buildInvocationMessage(
  skill: string,
  input: JsonObject,
  options: InvocationMessageOptions,
): JsonObject {
  // One builder for the wire shape: the message of a send's params (a2a-wire.ts).
  return invocationParams(options.wire, skill, input, options)['message'] as JsonObject;
}

/**
 * Checks a whole profile request as a server receives it: activation first (when `required`),
 * then the Message. `headers` are the request's (any case; Node lower-cases them).
 */
export function checkProfileRequest(
  headers: Record<string, string | readonly string[] | undefined>,
  message: unknown,
  options: { required: boolean } & ParseInvocationOptions,
): ProfileInvocationParse {
  if (options.required && !isProfileActivated(headerValue(headers, 'a2a-extensions'))) {
    return profileViolation(
      'extension_not_activated',
      `this interface requires the AdCP A2A profile: send the header A2A-Extensions: ${ADCP_PROFILE_URI}`,
    );
  }
  return parseProfileInvocation(message, options);
}

function headerValue(
  headers: Record<string, string | readonly string[] | undefined>,
  name: string,
): string | readonly string[] | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}
