import { createRequire } from 'node:module';
import { posix } from 'node:path';
import type { Ajv as AjvInstance, AnySchemaObject } from 'ajv';

const require = createRequire(import.meta.url);

/** The parts of Ajv's compiled-function record (`code.source: true`) the split reads. */
interface Source {
  validateName: ScopeName;
  validateCode: string;
  scopeValues: Record<string, Set<ScopeName> | undefined>;
  evaluated?: { toString(): string };
}
interface ScopeName {
  prefix: string;
  value?: { ref?: unknown; code?: unknown };
  toString(): string;
}
interface Compiled {
  (data: unknown): boolean;
  source?: Source;
  schemaEnv?: { baseId?: string; schema?: unknown };
}

/** Where a root schema's validator lives after the split: module path and exported name. */
export interface ModuleRoot {
  module: string;
  name: string;
}

/**
 * Ajv's standalone code for a set of root schemas, split into one CommonJS module per schema file
 * (the `$id` each function was compiled under), so loading a tool's validator reads only the files
 * of its `$ref` closure and no code is repeated across tools. A call into another file's function
 * goes through a small proxy that requires that module on first call (cycles between files are
 * legal in the schema trees) and copies back `errors`, which Ajv's callers read. Follows Ajv's own
 * `standaloneCode` (ajv/dist/standalone) for everything inside one module.
 *
 * `moduleOf` maps a schema file's `$id` (and the schema compiled, so a part of a file split by
 * `splitSchema` can have a module of its own) to a module path (`media-buy/x-request.cjs`).
 */
export function splitValidatorModules(
  ajv: AjvInstance,
  rootIds: readonly string[],
  moduleOf: (baseId: string, schema?: unknown) => string,
): { modules: Map<string, string>; roots: Map<string, ModuleRoot> } {
  const byName = new Map<string, { source: Source; module: string }>();
  const roots = new Map<string, ModuleRoot>();
  const pending: Compiled[] = [];
  for (const id of rootIds) {
    const fn = ajv.getSchema(id) as Compiled | undefined;
    if (fn?.source === undefined) throw new Error(`schema ${id} did not compile to source`);
    pending.push(fn);
    roots.set(id, { module: moduleOf(fn.schemaEnv?.baseId ?? id), name: String(fn.source.validateName) });
  }
  while (pending.length > 0) {
    const fn = pending.pop()!;
    const source = fn.source!;
    const name = String(source.validateName);
    if (byName.has(name)) continue;
    byName.set(name, { source, module: moduleOf(fn.schemaEnv?.baseId ?? '', fn.schemaEnv?.schema) });
    for (const n of source.scopeValues['validate'] ?? []) pushRef(n.value?.ref, pending);
    for (const prefix of ['root', 'wrapper']) {
      for (const n of source.scopeValues[prefix] ?? [])
        pushRef((n.value?.ref as { validate?: unknown })?.validate, pending);
    }
  }
  const groups = new Map<string, Source[]>();
  for (const { source, module } of byName.values()) {
    const list = groups.get(module) ?? [];
    list.push(source);
    groups.set(module, list);
  }
  const modules = new Map<string, string>();
  for (const [module, sources] of groups) modules.set(module, moduleCode(ajv, module, sources, byName));
  return { modules, roots };
}

function pushRef(ref: unknown, pending: Compiled[]): void {
  if (typeof ref === 'function' && (ref as Compiled).source !== undefined) pending.push(ref as Compiled);
}

function moduleCode(
  ajv: AjvInstance,
  module: string,
  sources: readonly Source[],
  byName: Map<string, { source: Source; module: string }>,
): string {
  const used: Record<string, Map<unknown, number>> = {};
  const STARTED = 0;
  const DONE = 1;
  const scope = (ajv as unknown as { scope: { scopeCode: (...a: unknown[]) => { toString(): string } } }).scope;
  const state = (name: ScopeName) => used[name.prefix]?.get(name);
  const mark = (name: ScopeName, s: number) => {
    (used[name.prefix] ??= new Map()).set(name, s);
  };

  function validateCode(source: Source): string {
    if (state(source.validateName) === DONE) return '';
    mark(source.validateName, STARTED);
    const scopeCode = scope.scopeCode(source.scopeValues, used, refCode).toString();
    const evaluated =
      source.evaluated === undefined ? '' : `${String(source.validateName)}.evaluated = ${String(source.evaluated)};\n`;
    mark(source.validateName, DONE);
    return `${scopeCode}\n${source.validateCode}\n${evaluated}`;
  }

  /** Code for a validate function this module refers to: its body when it lives here, else a proxy. */
  function functionCode(fn: Compiled): string {
    const source = fn.source!;
    const target = byName.get(String(source.validateName))!;
    if (target.module === module) return validateCode(source);
    mark(source.validateName, DONE);
    const n = String(source.validateName);
    let from = posix.relative(posix.dirname(module), target.module);
    if (!from.startsWith('.')) from = `./${from}`;
    const evaluated = source.evaluated === undefined ? '' : `${n}.evaluated = ${String(source.evaluated)};\n`;
    return (
      `function ${n}(data, cxt) { const f = (${n}.f ??= require(${JSON.stringify(from)}).${n}); ` +
      `const ok = f(data, cxt); ${n}.errors = f.errors; return ok; }\n${evaluated}`
    );
  }

  /** Ajv's code generator quotes plain strings: what it splices must be one of its code objects. */
  const { _Code: Code } = require('ajv/dist/compile/codegen/code') as { _Code: new (code: string) => object };
  function refCode(n: ScopeName): object | undefined {
    const code = refCodeText(n);
    return code === undefined ? undefined : new Code(code);
  }

  function refCodeText(n: ScopeName): string | undefined {
    const ref = n.value?.ref;
    if (n.prefix === 'validate' && typeof ref === 'function') return functionCode(ref as Compiled);
    if ((n.prefix === 'root' || n.prefix === 'wrapper') && typeof ref === 'object' && ref !== null) {
      const { validate, validateName } = ref as { validate?: Compiled; validateName?: ScopeName };
      if (validate === undefined || validateName === undefined) throw new Error('ajv internal error');
      const wrapper = `const ${String(n)} = {validate: ${String(validateName)}};`;
      if (state(validateName) !== undefined) return wrapper;
      return `${wrapper}\n${functionCode(validate)}`;
    }
    return undefined;
  }

  let code = '"use strict";\n';
  for (const source of sources) code += validateCode(source);
  for (const source of sources) code += `exports.${String(source.validateName)} = ${String(source.validateName)};\n`;
  return code;
}

const MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);
const DATA = new Set(['enum', 'const', 'default', 'required', 'examples']);
const PROSE = new Set(['description', 'title', '$comment']);

/**
 * A schema without its prose (`description`, `title`, `$comment`, `examples`): keywords that never
 * change a validation outcome. Property names are kept (a property may be called `description`).
 */
export function stripProse(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripProse);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: AnySchemaObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((PROSE.has(key) && typeof value === 'string') || key === 'examples') continue;
    if (DATA.has(key)) out[key] = value;
    else if (MAPS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const map: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) map[name] = stripProse(sub);
      out[key] = map;
    } else out[key] = stripProse(value);
  }
  return out;
}
