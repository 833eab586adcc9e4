import { isReadOnlyTool } from '../core/tool-table.js';
import type { JsonObject } from '../core/types.js';
import { getValidator } from '../schemas/adcp-validator.js';
import { loadSchemaBundle } from '../schemas/schema-bundle.js';
import { DEFAULT_RELEASE } from '../schemas/supported-releases.js';
import { projectSchema } from '../schemas/tool-projection.js';
import type { ValidationIssue } from '../schemas/validation-result.js';

/** A tool's request schema for the page's form: one self-contained JSON Schema (local `$ref`s only). */
export interface SchemaView {
  tool: string;
  /** The release whose schema this is (the one negotiated with the agent), or absent when none is on disk. */
  release?: string;
  /** Bundle version (`3.1.19`). */
  version?: string;
  /** The tool changes state: the client adds an `idempotency_key`. */
  mutating: boolean;
  schema?: JsonObject;
  /** Why there is no schema (an unknown tool, no schemas on disk). */
  problem?: string;
  /** Fields the client fills in itself, hidden from the form. */
  filledByClient: string[];
}

export interface ValidationView {
  ok: boolean;
  release?: string;
  schema?: string;
  issues: ValidationIssue[];
  /** Nothing to check against (unknown tool, no schemas on disk). */
  skipped?: string;
}

/** Fields `AdcpClient.call` sets on every request: the form leaves them out. */
const FILLED_BY_CLIENT = ['idempotency_key', 'adcp_version', 'adcp_major_version'];
/** A key that passes the schema's pattern, standing in for the one the client generates. */
const PLACEHOLDER_KEY = '00000000-0000-4000-8000-000000000000';

export function requestSchemaFor(tool: string, release: string | undefined): SchemaView {
  const view: SchemaView = { tool, mutating: !isReadOnlyTool(tool, release), filledByClient: FILLED_BY_CLIENT };
  try {
    const bundle = loadSchemaBundle(release ?? DEFAULT_RELEASE);
    view.release = bundle.release;
    view.version = bundle.version;
    const entry = bundle.tool(tool);
    if (entry === undefined) {
      view.problem = `AdCP ${bundle.version} defines no tool ${tool}: write the arguments as JSON`;
      return view;
    }
    view.mutating = entry.mutating;
    view.schema = projectSchema(bundle, entry.request);
  } catch (error) {
    view.problem = `no AdCP ${release ?? DEFAULT_RELEASE} schemas on disk (${error instanceof Error ? error.message : String(error)}); run adcp schemas sync`;
  }
  return view;
}

/**
 * `args` against the tool's request schema of the release, as the client would send them: with
 * `adcp_version`, `adcp_major_version` and (for a mutating tool) an `idempotency_key` filled in
 * when absent, so only the user's own fields can fail.
 */
export function validateRequest(tool: string, args: JsonObject, release: string | undefined): ValidationView {
  let validator;
  try {
    validator = getValidator(release ?? DEFAULT_RELEASE);
  } catch (error) {
    return {
      ok: true,
      issues: [],
      skipped: `no schemas on disk (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  const sent: JsonObject = { ...args };
  sent['adcp_version'] ??= validator.release;
  sent['adcp_major_version'] ??= Number(validator.release.split('.')[0]);
  const entry = validator.bundle.tool(tool);
  if ((entry?.mutating ?? !isReadOnlyTool(tool, validator.release)) && sent['idempotency_key'] === undefined)
    sent['idempotency_key'] = PLACEHOLDER_KEY;
  const checked = validator.request(tool, sent);
  if (checked.ok) {
    return {
      ok: true,
      release: validator.release,
      issues: [],
      ...(checked.schema !== undefined ? { schema: checked.schema } : {}),
      ...(checked.skipped !== undefined ? { skipped: checked.skipped } : {}),
    };
  }
  return {
    ok: false,
    release: validator.release,
    issues: checked.issues,
    ...(checked.schema !== undefined ? { schema: checked.schema } : {}),
  };
}
