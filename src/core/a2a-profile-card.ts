import { ADCP_PROFILE_URI } from './a2a-wire.js';
import { profileViolation, type A2AProfileViolation } from './a2a-profile.js';
import { isPlainObject } from './plain-object.js';

/** What a conformant card says about the profile. */
export interface ProfileCardCheck {
  ok: true;
  /** The card marks the profile `required` (every request must activate it). */
  required: boolean;
  /** The AgentSkill ids, in card order. */
  skillIds: string[];
}

/** Most skills read from a card. */
export const MAX_CARD_SKILLS = 512;

/**
 * Checks an Agent Card against the profile's advertisement rules (a2a-profile-extension.md,
 * "Advertisement and activation", "Runtime discovery"): the extension under
 * `capabilities.extensions[]` (a top-level `extensions` array is not an A2A 1.0 AgentExtension),
 * `params` omitted or empty, `required` a boolean when present, every skill an object with a string
 * `id`, and `get_adcp_capabilities` among the ids (an `AgentSkill.name` never counts).
 */
export function checkProfileCard(card: unknown): ProfileCardCheck | A2AProfileViolation {
  if (!isPlainObject(card)) return profileViolation('invalid_agent_card', 'the agent card is not a JSON object');
  const capabilities = card['capabilities'];
  const listed = isPlainObject(capabilities) ? capabilities['extensions'] : undefined;
  const extension = Array.isArray(listed)
    ? listed.find((entry) => isPlainObject(entry) && entry['uri'] === ADCP_PROFILE_URI)
    : undefined;
  if (!isPlainObject(extension)) {
    const topLevel = card['extensions'];
    const misplaced =
      Array.isArray(topLevel) && topLevel.some((entry) => isPlainObject(entry) && entry['uri'] === ADCP_PROFILE_URI);
    return misplaced
      ? profileViolation(
          'extension_not_under_capabilities',
          'the AdCP profile is declared in a top-level extensions array; A2A 1.0 advertises it under capabilities.extensions[]',
        )
      : profileViolation(
          'extension_not_advertised',
          `the card does not declare ${ADCP_PROFILE_URI} under capabilities.extensions[]`,
        );
  }
  const params = extension['params'];
  if (params !== undefined && params !== null && !(isPlainObject(params) && Object.keys(params).length === 0)) {
    return profileViolation(
      'extension_params_not_empty',
      'AgentExtension.params must be omitted or empty for the AdCP profile (versions and features belong to get_adcp_capabilities)',
    );
  }
  const required = extension['required'];
  if (required !== undefined && typeof required !== 'boolean') {
    return profileViolation('invalid_agent_card', 'AgentExtension.required must be a boolean');
  }
  const skills = card['skills'];
  if (skills !== undefined && !Array.isArray(skills))
    return profileViolation('invalid_agent_card', 'skills must be an array');
  const skillIds: string[] = [];
  for (const skill of (skills ?? []) as unknown[]) {
    if (skillIds.length >= MAX_CARD_SKILLS) break;
    if (!isPlainObject(skill) || typeof skill['id'] !== 'string' || skill['id'] === '') {
      return profileViolation(
        'invalid_agent_skill',
        'every AgentSkill needs a non-empty string id (the exact AdCP task name)',
      );
    }
    skillIds.push(skill['id']);
  }
  if (!skillIds.includes('get_adcp_capabilities')) {
    return profileViolation(
      'missing_get_adcp_capabilities_skill_id',
      'no AgentSkill.id is get_adcp_capabilities (the id is the dispatch key; AgentSkill.name is only a label)',
    );
  }
  return { ok: true, required: required === true, skillIds };
}
