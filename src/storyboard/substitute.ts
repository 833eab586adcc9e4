import { randomUUID } from 'node:crypto';
import { resolvePath } from './paths.js';

/**
 * The placeholders of `sample_request` (storyboard-schema.yaml, "Context accumulator and
 * substitution"): `$context.<name>`, `{{prior_step.<id>.<field>}}`, `{{runner.webhook_url:<step>}}`,
 * `{{runner.webhook_base}}`, `$test_kit.<path>` and `$generate:uuid_v4#<alias>`. A whole-string
 * token keeps the captured value's type; a token inside a longer string is interpolated. A token
 * that cannot be resolved is reported, never sent.
 */
export interface SubstitutionScope {
  context: Record<string, unknown>;
  /** Response bodies of earlier steps by step id. */
  priorSteps: Map<string, unknown>;
  testKit: unknown;
  /** `{{runner.webhook_url:<step>}}`; undefined without a receiver. */
  webhookUrl?: (stepId: string) => string;
  webhookBase?: string;
  /** `$generate:uuid_v4#alias` values of this run. */
  generated: Map<string, string>;
}

export class UnresolvedSubstitution extends Error {
  override readonly name = 'UnresolvedSubstitution';
  constructor(readonly token: string) {
    super(`unresolved substitution ${token}`);
  }
}

const WHOLE =
  /^(\$context\.[A-Za-z0-9_]+|\$test_kit\.[A-Za-z0-9_.]+|\$generate:[a-z0-9_]+(#[A-Za-z0-9_-]+)?|\{\{[^{}]+\}\})$/;
const INNER = /\$context\.[A-Za-z0-9_]+|\{\{[^{}]+\}\}|\$generate:uuid_v4#[A-Za-z0-9_-]+/g;

function resolveToken(token: string, scope: SubstitutionScope): unknown {
  if (token.startsWith('$context.')) {
    const name = token.slice('$context.'.length);
    if (!Object.hasOwn(scope.context, name)) throw new UnresolvedSubstitution(token);
    return scope.context[name];
  }
  if (token.startsWith('$test_kit.')) {
    const found = resolvePath(scope.testKit, token.slice('$test_kit.'.length));
    if (found === undefined || found.value === null) throw new UnresolvedSubstitution(token);
    return found.value;
  }
  if (token.startsWith('$generate:')) {
    const [kind, alias] = token.slice('$generate:'.length).split('#');
    if (kind !== 'uuid_v4' && kind !== 'opaque_id') throw new UnresolvedSubstitution(token);
    if (alias === undefined) return randomUUID();
    let value = scope.generated.get(alias);
    if (value === undefined) {
      value = randomUUID();
      scope.generated.set(alias, value);
    }
    return value;
  }
  const inner = token.slice(2, -2).trim();
  if (inner === 'runner.webhook_base') {
    if (scope.webhookBase === undefined) throw new UnresolvedSubstitution(token);
    return scope.webhookBase;
  }
  if (inner.startsWith('runner.webhook_url:')) {
    if (scope.webhookUrl === undefined) throw new UnresolvedSubstitution(token);
    return scope.webhookUrl(inner.slice('runner.webhook_url:'.length));
  }
  if (inner.startsWith('prior_step.')) {
    const rest = inner.slice('prior_step.'.length);
    const dot = rest.indexOf('.');
    const id = dot < 0 ? rest : rest.slice(0, dot);
    if (!scope.priorSteps.has(id)) throw new UnresolvedSubstitution(token);
    const found =
      dot < 0 ? { value: scope.priorSteps.get(id) } : resolvePath(scope.priorSteps.get(id), rest.slice(dot + 1));
    if (found === undefined || found.value === undefined || found.value === null)
      throw new UnresolvedSubstitution(token);
    return found.value;
  }
  throw new UnresolvedSubstitution(token);
}

/** `value` with every placeholder replaced (a deep copy). Throws UnresolvedSubstitution. */
export function substitute(value: unknown, scope: SubstitutionScope): unknown {
  if (typeof value === 'string') {
    if (WHOLE.test(value)) return resolveToken(value, scope);
    return value.replace(INNER, (token) => {
      const resolved = resolveToken(token, scope);
      return typeof resolved === 'string' ? resolved : JSON.stringify(resolved);
    });
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, scope));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = substitute(item, scope);
    return out;
  }
  return value;
}

/** The `$context.<name>` names `value` refers to (to tell a skipped producer from a missing one). */
export function contextNames(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === 'string') for (const m of value.matchAll(/\$context\.([A-Za-z0-9_]+)/g)) out.add(m[1] ?? '');
  else if (Array.isArray(value)) for (const item of value) contextNames(item, out);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) contextNames(item, out);
  return out;
}

/**
 * The phase gate `skip_if` and the step gate `contributes_if` (storyboard-schema.yaml): terms
 * joined by `||` or `&&`; a term is `!path`, `path`, or `path ==|!= operand` (a path, `true`,
 * `false`, `null`, a number or a quoted string). Paths start at `context.`, `test_kit.` or
 * `prior_step.<id>.passed`. Throws on anything else (a harness fault: the runner does not know).
 */
export function evaluateCondition(
  expression: string,
  roots: { context: unknown; test_kit: unknown; prior_step: unknown },
): boolean {
  const read = (path: string): unknown => {
    const root = path.split('.')[0];
    if (root !== 'context' && root !== 'test_kit' && root !== 'prior_step') {
      throw new Error(`unsupported path ${path} in condition ${JSON.stringify(expression)}`);
    }
    return resolvePath(roots, path)?.value;
  };
  const operand = (text: string): unknown => {
    const t = text.trim();
    if (t === 'true') return true;
    if (t === 'false') return false;
    if (t === 'null') return null;
    if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
    const quoted = /^'(.*)'$|^"(.*)"$/.exec(t);
    if (quoted !== null) return quoted[1] ?? quoted[2];
    return read(t);
  };
  const term = (text: string): boolean => {
    const t = text.trim();
    const cmp = /^(.+?)\s*(==|!=)\s*(.+)$/.exec(t);
    if (cmp !== null) {
      const left = operand(cmp[1] ?? '');
      const right = operand(cmp[3] ?? '');
      return cmp[2] === '==' ? left === right : left !== right;
    }
    if (t.startsWith('!')) return !truthy(operand(t.slice(1)));
    return truthy(operand(t));
  };
  if (expression.includes('||')) return expression.split('||').some((part) => evaluateCondition(part, roots));
  if (expression.includes('&&')) return expression.split('&&').every((part) => evaluateCondition(part, roots));
  return term(expression);
}

const truthy = (value: unknown) =>
  value !== undefined && value !== null && value !== false && value !== '' && value !== 0;
