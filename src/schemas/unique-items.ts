import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, KeywordCxt } from 'ajv';

const require = createRequire(import.meta.url);

/**
 * The first duplicate pair of an array as `[i, j]` (j < i, `data[i]` equals `data[j]` as JSON values),
 * or `null`. Each item is reduced once to a canonical key (object keys sorted), so the check is linear
 * in the array's size (times its depth, which the input bounds cap at 64), where Ajv's own
 * `uniqueItems` compares items of unknown type pair by pair: 16,000 distinct objects cost 23 s.
 * Kept as source text: the build writes it into the precompiled validators as it is.
 */
const DUPLICATE_AT_SOURCE = `function duplicateAt(data) {
  const key = (value) => {
    if (value === null || typeof value !== 'object') return JSON.stringify(value);
    if (Array.isArray(value)) return '[' + value.map(key).join(',') + ']';
    return '{' + Object.keys(value).sort().map((k) => JSON.stringify(k) + ':' + key(value[k])).join(',') + '}';
  };
  const seen = new Map();
  for (let i = 0; i < data.length; i++) {
    const k = key(data[i]);
    const j = seen.get(k);
    if (j !== undefined) return [i, j];
    seen.set(k, i);
  }
  return null;
}`;

// oxlint-disable-next-line typescript/no-implied-eval -- the function is source text the build also writes out
const duplicateAt = new Function(`return ${DUPLICATE_AT_SOURCE}`)() as ((
  data: unknown[],
) => [number, number] | null) & {
  code: string;
};
duplicateAt.code = `(${DUPLICATE_AT_SOURCE})`;

/**
 * Replaces Ajv's `uniqueItems` (quadratic on items whose type the schema does not state, such as
 * `$ref` items) with a linear one of the same meaning and error (`params: { i, j }`).
 */
export function useLinearUniqueItems(ajv: AjvInstance): void {
  const { _, str } = require('ajv') as typeof import('ajv');
  // Ajv's own class for code written as text (validator-modules.ts uses it too): the standalone
  // modules print `code`; run-time validators call `ref`.
  const { _Code: RawCode } = require('ajv/dist/compile/codegen/code') as {
    _Code: new (code: string) => import('ajv').Code;
  };
  const code = new RawCode(`(${DUPLICATE_AT_SOURCE})`);
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({
    keyword: 'uniqueItems',
    type: 'array',
    schemaType: 'boolean',
    error: {
      message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
      params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
    },
    code(cxt: KeywordCxt) {
      const { gen, data, schema } = cxt;
      if (schema !== true) return;
      const fn = gen.scopeValue('func', { ref: duplicateAt, code });
      const found = gen.const('dup', _`${fn}(${data})`);
      cxt.setParams({ i: _`${found}[0]`, j: _`${found}[1]` });
      cxt.fail(_`${found} !== null`);
    },
  });
}
