import { AdcpSchemaError } from './schema-error.js';
import { BundleCompiler, type CompilerOptions } from './bundle-compiler.js';
import { checkInputBounds, type InputBounds } from './bounded-input.js';
import { loadSchemaBundle, type AsyncStatus, type SchemaBundle } from './schema-bundle.js';
import { toIssues, type ValidationResult } from './validation-result.js';

/**
 * Checks AdCP payloads of one release against its official schemas. Every method returns data
 * and never throws on the value: an unknown tool is `{ ok: true, skipped: 'unknown_tool' }`, a
 * value past the bounds (depth, size) or one that makes the validator fail is an issue. Only a
 * broken schema tree throws (`AdcpSchemaError`).
 */
export class AdcpValidator {
  readonly bundle: SchemaBundle;
  readonly #compiler: BundleCompiler;
  readonly #bounds: InputBounds;

  constructor(bundle: SchemaBundle, bounds: InputBounds = {}, compiler: CompilerOptions = {}) {
    this.bundle = bundle;
    this.#compiler = new BundleCompiler(bundle, compiler);
    this.#bounds = bounds;
  }

  /** Bundle version (`3.1.19`). */
  get version(): string {
    return this.bundle.version;
  }

  /** Release precision (`3.1`). */
  get release(): string {
    return this.bundle.release;
  }

  /** A tool call's arguments against the tool's request schema. */
  request(tool: string, value: unknown): ValidationResult {
    const entry = this.bundle.tool(tool);
    return entry === undefined ? { ok: true, skipped: 'unknown_tool' } : this.schema(entry.request, value);
  }

  /** A tool's completed (or failed) answer against its response schema. */
  response(tool: string, value: unknown): ValidationResult {
    const entry = this.bundle.tool(tool);
    return entry === undefined ? { ok: true, skipped: 'unknown_tool' } : this.schema(entry.response, value);
  }

  /**
   * A result for an AdCP task status (webhook `result`, polled `result`): `working`,
   * `input-required` and `submitted` use the status-specific schema when the tool has one,
   * `completed` and `failed` the response schema; other statuses have no schema.
   */
  result(tool: string, status: string, value: unknown): ValidationResult {
    const entry = this.bundle.tool(tool);
    if (entry === undefined) return { ok: true, skipped: 'unknown_tool' };
    if (status === 'completed' || status === 'failed') return this.schema(entry.response, value);
    const path = entry.async[status as AsyncStatus];
    return path === undefined ? { ok: true, skipped: 'no_schema' } : this.schema(path, value);
  }

  /** Any schema of the release by path (`core/error.json`). */
  schema(path: string, value: unknown): ValidationResult {
    const tooBig = checkInputBounds(value, this.#bounds);
    if (tooBig !== undefined) return { ok: false, schema: path, issues: [tooBig] };
    const validate = this.#compiler.compile(path);
    try {
      if (validate(value) === true) return { ok: true, schema: path };
      return { ok: false, schema: path, issues: toIssues(validate.errors) };
    } catch {
      return {
        ok: false,
        schema: path,
        issues: [
          { pointer: '', keyword: 'error', message: 'could not be checked (the validator failed on this value)' },
        ],
      };
    }
  }

  /** Compiles a tool's request and response schemas now instead of on first use. */
  warm(tool: string): void {
    const entry = this.bundle.tool(tool);
    if (entry === undefined) throw new AdcpSchemaError('unknown_tool', `AdCP ${this.version} has no tool ${tool}`);
    this.#compiler.compile(entry.request);
    this.#compiler.compile(entry.response);
  }
}

const validators = new Map<SchemaBundle, AdcpValidator>();
const runtimeValidators = new Map<SchemaBundle, AdcpValidator>();

/**
 * The validator of a release (`3.1`, `3.1.19`, `3`; default `3.1`), one per bundle. A tool's
 * validators load on first use: the ones `npm run build` compiled ahead of time when they match the
 * release, else compiled then (`precompiled: false` always compiles at run time).
 */
export function getValidator(
  version?: string,
  options: { dirs?: string[]; precompiled?: boolean } = {},
): AdcpValidator {
  const bundle = loadSchemaBundle(version, options);
  const cache = options.precompiled === false ? runtimeValidators : validators;
  let validator = cache.get(bundle);
  if (validator === undefined) {
    validator = new AdcpValidator(bundle, {}, { precompiled: options.precompiled !== false });
    cache.set(bundle, validator);
  }
  return validator;
}
