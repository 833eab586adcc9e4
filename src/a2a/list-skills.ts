import { isJsonObject } from '../core/json-object.js';
import type { ToolInfo } from '../transport/transport.js';
import type { CardLookup } from './discover-card.js';
import { sanitizeSellerText } from '../core/sanitize.js';

const SKILL_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * The card's skills as tools: ids that are not plain identifiers (control characters, spaces,
 * over 128 characters) are left out; descriptions are seller text, sanitised.
 */
export function skillsOf(lookup: CardLookup): ToolInfo[] {
  if (!lookup.found) return [];
  const skills = lookup.card['skills'];
  const tools: ToolInfo[] = [];
  for (const skill of Array.isArray(skills) ? skills : []) {
    if (!isJsonObject(skill) || typeof skill['id'] !== 'string' || !SKILL_ID.test(skill['id'])) continue;
    const info: ToolInfo = { name: skill['id'] };
    const description = sanitizeSellerText(skill['description'], { maxLength: 1024 });
    if (description !== undefined && description !== '') info.description = description;
    tools.push(info);
  }
  return tools;
}
