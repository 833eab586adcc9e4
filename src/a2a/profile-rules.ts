import { checkProfileCard, type ProfileCardCheck } from '../core/a2a-profile-card.js';
import { checkProfileSendResponse, checkProfileTask } from '../core/a2a-profile-response.js';
import type { A2AProfileViolation } from '../core/a2a-profile.js';
import { isPlainObject } from '../core/plain-object.js';
import { AdcpWireError } from '../core/wire-error.js';
import type { CardLookup } from './discover-card.js';
import { listEndpoints, type A2AEndpoint } from './select-interface.js';

/** What the agent card says about the AdCP A2A profile: conformant, or the first rule it breaks. */
export type CardProfile = ProfileCardCheck | A2AProfileViolation;

/** The profile check of a card that was found; `undefined` when there is no card to check. */
export function cardProfileOf(lookup: CardLookup): CardProfile | undefined {
  return lookup.found ? checkProfileCard(lookup.card) : undefined;
}

/**
 * The profile binds an A2A 1.0 interface of an agent whose card was read: v0.3 interfaces predate
 * it (their agents do not claim it) and without a card nothing was advertised to hold the agent to.
 */
export function isProfiled(lookup: CardLookup, endpoint: A2AEndpoint): boolean {
  return lookup.found && endpoint.wire === '1.0';
}

/**
 * Throws `profile_violation` (with the rule) before a request goes to the 1.0 interface of an
 * agent whose card breaks the profile's advertisement rules (a2a-profile-extension.md,
 * "Advertisement and activation", "Runtime discovery"); names the ways through: `a2aWire: 'plain'`,
 * and v0.3 when the card also offers it. Not called for a `plain` client.
 */
export function assertProfileCard(lookup: CardLookup, profile: CardProfile | undefined, endpoint: A2AEndpoint): void {
  if (!lookup.found || profile === undefined || profile.ok || endpoint.wire !== '1.0') return;
  const legacy = listEndpoints(lookup.card, lookup.url).some((e) => e.wire === '0.3');
  const hint =
    "; to call it as plain A2A 1.0 (no profile activation, answers not held to it) pass a2aWire: 'plain'" +
    (legacy ? ", or use its v0.3 interface with a2aWire: '0.3' or 'auto'" : '');
  throw new AdcpWireError(
    'profile_violation',
    `agent card at ${lookup.url} breaks the AdCP A2A profile (${profile.code}): ${profile.message}${hint}`,
    { url: lookup.url, rule: profile.code },
  );
}

/**
 * Throws `profile_violation` for an answer of a profiled interface that breaks the profile's
 * response rules: a `SendMessage` answer must be `{ task }`; any Task (sent, streamed, got,
 * canceled) keeps AdCP Submitted work in a completed Task, with its `task_id` only in the DataPart.
 */
export function assertProfileAnswer(
  answer: unknown,
  kind: 'send' | 'task',
  where: { url: string; tool: string },
): void {
  const check =
    kind === 'send' ? checkProfileSendResponse(answer) : isPlainObject(answer) ? checkProfileTask(answer) : undefined;
  if (check === undefined || check.ok) return;
  throw new AdcpWireError(
    'profile_violation',
    `${where.tool} at ${where.url} answered against the AdCP A2A profile (${check.code}): ${check.message}`,
    { url: where.url, tool: where.tool, rule: check.code },
  );
}
