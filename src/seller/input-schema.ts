import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import { loadSchemaBundle } from '../schemas/schema-bundle.js';

/** Envelope fields every tool takes (versioning.md, context echo), whatever its request schema lists. */
const ENVELOPE = ['adcp_version', 'adcp_major_version', 'context', 'ext'];

/**
 * An open `inputSchema` naming every top-level field of the tool's AdCP 3.1 request schema (and
 * the envelope fields), so clients that send only the fields a tool lists keep them all. The
 * server validates against the full schema; this only names the fields. Without schemas on disk:
 * the envelope fields and `known` alone.
 */
export function adcpInputSchema(tool: string, known: JsonObject = {}): JsonObject {
  const properties: JsonObject = {};
  for (const name of [...ENVELOPE, ...requestFields(tool)]) properties[name] = {};
  return { type: 'object', properties: { ...properties, ...known }, additionalProperties: true };
}

function requestFields(tool: string): string[] {
  try {
    const bundle = loadSchemaBundle('3.1');
    const path = bundle.tool(tool)?.request;
    if (path === undefined) return [];
    const schema = bundle.schema(path) as JsonObject;
    return isJsonObject(schema.properties) ? Object.keys(schema.properties) : [];
  } catch {
    return [];
  }
}
