import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, ValidateFunction } from 'ajv';
import { AdcpSchemaError } from './schema-error.js';
import type { SchemaBundle } from './schema-bundle.js';
import { loadPrecompiled } from './precompiled.js';
import { stripProse } from './validator-modules.js';
import { splitSchema } from './split-schema.js';
import { useLinearUniqueItems } from './unique-items.js';

const require = createRequire(import.meta.url);
const ORIGIN = 'https://adcontextprotocol.org';

/** How a compiler gets its validators. */
export interface CompilerOptions {
  /**
   * `true` (default): use the validators `npm run build` compiled ahead of time when they match the
   * release; `false`: always compile at run time.
   */
  precompiled?: boolean;
  /** Keep each function's source for `splitValidatorModules` (the build sets it). */
  source?: boolean;
}

/** Ajv and its formats, loaded on the first compile (never at import time). */
function newAjv(source: boolean): AjvInstance {
  const { Ajv } = require('ajv') as typeof import('ajv');
  const formats = require('ajv-formats') as { default: (ajv: AjvInstance) => AjvInstance };
  const ajv = new Ajv({
    strict: false,
    allErrors: false,
    validateSchema: false,
    logger: false,
    inlineRefs: false,
    code: { source, lines: false },
  });
  formats.default(ajv);
  useLinearUniqueItems(ajv);
  return ajv;
}

/**
 * Compiles the schemas of one release with Ajv, lazily: a schema's `$ref` closure is read from
 * disk (every URI mapped to the release's folder; a foreign or missing one is an
 * `unresolvable_ref` AdcpSchemaError, never a network fetch), then compiled once and kept.
 */
export class BundleCompiler {
  readonly bundle: SchemaBundle;
  #ajv: AjvInstance | undefined;
  readonly #added = new Set<string>();
  readonly #compiled = new Map<string, ValidateFunction>();
  /** With `source`: each part a large schema file was split into -> `file.part.cjs` (split-schema.ts). */
  readonly parts = new Map<object, string>();

  readonly #options: CompilerOptions;

  constructor(bundle: SchemaBundle, options: CompilerOptions = {}) {
    this.bundle = bundle;
    this.#options = options;
  }

  /** The Ajv instance holding every schema compiled at run time so far (the build reads it). */
  get ajv(): AjvInstance | undefined {
    return this.#ajv;
  }

  /** The compiled validator of the schema at `path` inside the release. */
  compile(path: string): ValidateFunction {
    const done = this.#compiled.get(path);
    if (done !== undefined) return done;
    if (this.#options.precompiled !== false && this.#options.source !== true) {
      const ahead = loadPrecompiled(this.bundle.version, this.bundle.fingerprint, path);
      if (ahead !== undefined) {
        this.#compiled.set(path, ahead);
        return ahead;
      }
    }
    const ajv = (this.#ajv ??= newAjv(this.#options.source === true));
    this.#addClosure(path);
    let fn: ValidateFunction | undefined;
    try {
      fn = ajv.getSchema(this.bundle.idOf(path));
    } catch (error) {
      throw new AdcpSchemaError('unresolvable_ref', `Schema ${path} of AdCP ${this.bundle.version} does not compile`, {
        cause: error,
      });
    }
    if (fn === undefined)
      throw new AdcpSchemaError('unresolvable_ref', `AdCP ${this.bundle.version} has no schema ${path}`);
    this.#compiled.set(path, fn);
    return fn;
  }

  #addClosure(root: string): void {
    const ajv = this.#ajv!;
    const pending = [root];
    while (pending.length > 0) {
      const path = pending.pop()!;
      if (this.#added.has(path)) continue;
      const schema = this.bundle.schema(path);
      const id = this.bundle.idOf(path);
      const refs: string[] = [];
      collectRefs(schema, refs, 0);
      for (const ref of refs) {
        if (ref.startsWith('#')) continue;
        const target = this.#resolve(ref, id);
        if (target === undefined) {
          throw new AdcpSchemaError(
            'unresolvable_ref',
            `Schema ${path} of AdCP ${this.bundle.version} refers to ${JSON.stringify(ref).slice(0, 160)}, outside the release`,
          );
        }
        if (!this.#added.has(target)) pending.push(target);
      }
      const ownId = (schema as { $id?: unknown }).$id;
      let stripped = stripProse(schema);
      if (this.#options.source === true) {
        const split = splitSchema(stripped);
        for (const [part, name] of split.parts) this.parts.set(part, path.replace(/\.json$/, `.${name}.cjs`));
        stripped = split.schema;
      }
      ajv.addSchema(stripped as object, typeof ownId === 'string' ? undefined : id);
      this.#added.add(path);
    }
  }

  #resolve(ref: string, base: string): string | undefined {
    let url: URL;
    try {
      url = new URL(ref, base.startsWith('/') ? ORIGIN + base : base);
    } catch {
      return undefined;
    }
    const absolute = this.bundle.idPrefix.startsWith('/')
      ? url.origin === ORIGIN
        ? url.pathname
        : undefined
      : url.href;
    return absolute === undefined ? undefined : this.bundle.pathOf(absolute);
  }
}

function collectRefs(node: unknown, out: string[], depth: number): void {
  if (depth > 200 || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, out, depth + 1);
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out.push(value);
    else if (key !== 'examples' && key !== 'enum' && key !== 'const') collectRefs(value, out, depth + 1);
  }
}
