/**
 * Splits a large schema file into parts its compiled validator can load one by one.
 *
 * Ajv compiles a schema file into one function, whatever its size (`inlineRefs: false` keeps only
 * `$ref`s apart); `get-adcp-capabilities-response.json` becomes one 140 KB function that V8 must
 * parse and compile whole on the first call, though a seller's answer reaches a few of its
 * blocks. Here each large `properties` entry moves to the file's own `definitions` and is
 * replaced by a `$ref` to it: in draft-07 a schema that is only a `$ref` means exactly the schema
 * referred to, and the base URI is the same file, so the outcome of every check and its errors
 * (instance path, keyword, params, message, order) are unchanged; only `schemaPath`, which the
 * issues do not carry, names the new place. Each moved part compiles to a function of its own,
 * which the build writes to a module of its own (`splitValidatorModules`).
 *
 * Left as they are: a file under `minBytes`, an entry under `partBytes`, a name that is not a
 * plain identifier, a part holding an `$id`, and a file with a JSON pointer into its properties.
 */
export interface SplitSchema {
  schema: unknown;
  /** Each moved part (the object Ajv compiles) -> its name (`media_buy`, `media_buy.features`). */
  parts: Map<object, string>;
}

const PREFIX = 'adcp_part_';

export function splitSchema(schema: unknown, minBytes = 16_384, partBytes = 200): SplitSchema {
  const parts = new Map<object, string>();
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return { schema, parts };
  const text = JSON.stringify(schema);
  if (text.length < minBytes || text.includes('"#/properties') || text.includes(`"${PREFIX}`)) {
    return { schema, parts };
  }
  const root = { ...(schema as Record<string, unknown>) };
  const existing = root['definitions'];
  if (existing !== undefined && (existing === null || typeof existing !== 'object' || Array.isArray(existing))) {
    return { schema, parts };
  }
  const definitions: Record<string, unknown> = { ...(existing as Record<string, unknown> | undefined) };

  /** Moves the large entries of `node.properties` (a copy of `node` is returned). */
  function split(node: Record<string, unknown>, prefix: string): Record<string, unknown> {
    const properties = node['properties'];
    if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) return node;
    const out: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(properties as Record<string, unknown>)) {
      const size = JSON.stringify(sub)?.length ?? 0;
      const movable =
        size >= partBytes &&
        /^[A-Za-z0-9_]{1,64}$/.test(name) &&
        sub !== null &&
        typeof sub === 'object' &&
        !Array.isArray(sub) &&
        !JSON.stringify(sub).includes('"$id"');
      if (!movable) {
        out[name] = sub;
        continue;
      }
      const partName = prefix === '' ? name : `${prefix}.${name}`;
      const key = `${PREFIX}${partName.replace(/\./g, '__')}`;
      if (key in definitions) {
        out[name] = sub;
        continue;
      }
      const part = split(sub as Record<string, unknown>, partName);
      definitions[key] = part;
      parts.set(part, partName);
      out[name] = { $ref: `#/definitions/${key}` };
    }
    return { ...node, properties: out };
  }

  const top = split(root, '');
  if (parts.size === 0) return { schema, parts };
  return { schema: { ...top, definitions }, parts };
}
