import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findReleases } from './schema-dirs.js';
import { loadSchemaBundle } from './schema-bundle.js';
import { DEFAULT_RELEASE } from './select-release.js';
import { projectSchema, type ToolProjection } from './tool-projection.js';

type Json = Record<string, unknown>;

/** The MCP revision whose tool-schema projection the spec publishes (3.2 releases on). */
export const MCP_PROJECTION_REVISION = '2026-07-28';

let specFiles: Map<string, string> | undefined;
const inputs = new Map<string, Json | null>();
const outputs = new Map<string, Json | null>();

/**
 * The discovery schemas of an AdCP tool for MCP `tools/list`, or `undefined` for a name the
 * release does not define: `toolInputSchema` and `toolOutputSchema` together.
 */
export function toolDiscoverySchemas(tool: string, version: string = DEFAULT_RELEASE): ToolProjection | undefined {
  const inputSchema = toolInputSchema(tool, version);
  const outputSchema = toolOutputSchema(tool, version);
  return inputSchema === undefined || outputSchema === undefined ? undefined : { inputSchema, outputSchema };
}

/**
 * A tool's discovery `inputSchema`: the spec's published 3.2 projection (`mcp/2026-07-28/`, full
 * projection, else the production profile) when it has the tool, else `projectSchema` of the
 * release's canonical request schema. Computed once per release and tool.
 */
export function toolInputSchema(tool: string, version: string = DEFAULT_RELEASE): Json | undefined {
  const bundle = loadSchemaBundle(version);
  const key = `${bundle.dir}\u0000${tool}`;
  let found = inputs.get(key);
  if (found === undefined) {
    const entry = bundle.tool(tool);
    found = entry === undefined ? null : (specInput(tool) ?? projectSchema(bundle, entry.request, { input: true }));
    inputs.set(key, found);
  }
  return found ?? undefined;
}

/**
 * A tool's discovery `outputSchema`: the projection of the release's canonical response schema
 * (clients check `structuredContent` against it, so it must accept what this release answers),
 * with `type: "object"` at its root as MCP requires of an `outputSchema` (the SDK client refuses
 * the whole `tools/list` otherwise). A response schema without a root `type` (3.1
 * preview-creative-response.json: `allOf` and `oneOf` of objects) accepts only objects anyway.
 */
export function toolOutputSchema(tool: string, version: string = DEFAULT_RELEASE): Json | undefined {
  const bundle = loadSchemaBundle(version);
  const key = `${bundle.dir}\u0000${tool}`;
  let found = outputs.get(key);
  if (found === undefined) {
    const entry = bundle.tool(tool);
    found = entry === undefined ? null : projectSchema(bundle, entry.response);
    if (found !== null && found['type'] === undefined) found = { ...found, type: 'object' };
    outputs.set(key, found);
  }
  return found ?? undefined;
}

/** The spec's projected `inputSchema` of a tool (the newest release that publishes one), if any. */
export function specInput(tool: string): Json | undefined {
  if (specFiles === undefined) {
    specFiles = new Map();
    const releases = findReleases().sort((a, b) => (a.version < b.version ? 1 : -1));
    for (const { dir } of releases) {
      const base = join(dir, 'mcp', MCP_PROJECTION_REVISION);
      for (const folder of [base, join(base, 'profiles', 'production')]) {
        const manifest = readJson(join(folder, 'manifest.json')) as { tools?: Record<string, Json> } | undefined;
        for (const [name, entry] of Object.entries(manifest?.tools ?? {})) {
          const file = typeof entry['inputSchema'] === 'string' ? join(folder, entry['inputSchema']) : undefined;
          if (!specFiles.has(name) && file !== undefined && existsSync(file)) specFiles.set(name, file);
        }
      }
    }
  }
  const file = specFiles.get(tool);
  return file === undefined ? undefined : readJson(file);
}

function readJson(file: string): Json | undefined {
  if (!file.endsWith('.json') || !existsSync(file)) return undefined;
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}
