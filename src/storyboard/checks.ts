import type { JsonObject } from '../core/types.js';
import type { ValidationResult } from '../schemas/validation-result.js';
import { deepEqual, deepSubset, pointerOf, resolveAll, resolvePath } from './paths.js';
import type { ValidationOutcome } from './types.js';

/** What one step observed, for its validations to grade. */
export interface Observation {
  tool: string;
  /** The AdCP task status of the answer (`completed`, `failed`, `submitted`, ...), or `http_error`. */
  status: string;
  /** The answer's body (the AdCP payload with its envelope fields). */
  body: unknown;
  /** The AdCP error code, from wherever the transport put it (adcp_error, errors[0]). */
  errorCode?: string;
  httpStatus?: number;
  httpHeaders?: Record<string, string>;
  request: JsonObject;
  context: Record<string, unknown>;
  flags: Map<string, string>;
  protocol: 'mcp' | 'a2a';
  agentUrl: string;
  /** Validates against a schema of the release by its path; undefined when no schemas are at hand. */
  schema?: (path: string, value: unknown) => ValidationResult;
  responseSchemaRef?: string;
  /** The raw A2A task, for a2a_submitted_artifact. */
  raw?: unknown;
}

type Validation = Record<string, unknown>;

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The value of a field, or `undefined` (absent). */
function field(body: unknown, path: string) {
  return path === '' ? { value: body, pointer: '' } : resolvePath(body, path);
}

/**
 * Grades one authored validation (runner-output-contract.yaml, `authored_check_kinds`) against
 * what the step observed. A check kind this runner does not implement is `not_applicable` with
 * a note (the contract's forward-compatibility rule), never a failure of the agent.
 */
export function grade(validation: Validation, seen: Observation): ValidationOutcome {
  const check = str(validation['check']) ?? '(none)';
  const description = str(validation['description']) ?? check;
  const severity = validation['severity'] === 'advisory' ? 'advisory' : 'required';
  const path = str(validation['path']);
  const out = (verdict: ValidationOutcome['verdict'], rest: Partial<ValidationOutcome>): ValidationOutcome => ({
    check,
    description,
    verdict,
    severity,
    json_pointer: null,
    expected: null,
    actual: null,
    ...(path === undefined ? {} : { path }),
    ...rest,
  });
  const pass = (ok: boolean, rest: Partial<ValidationOutcome>) => out(ok ? 'passed' : 'failed', rest);
  const allowed = Array.isArray(validation['allowed_values']) ? (validation['allowed_values'] as unknown[]) : undefined;
  const hasValue = Object.hasOwn(validation, 'value');
  const expectedValue = hasValue ? validation['value'] : allowed;
  const matches = (actual: unknown) =>
    (hasValue && deepEqual(validation['value'], actual)) || (allowed?.some((a) => deepEqual(a, actual)) ?? false);

  switch (check) {
    case 'response_schema': {
      if (seen.schema === undefined) {
        return out('not_applicable', {
          note: 'no schemas of this release on disk (adcp schemas sync, or ADCP_SCHEMAS_DIR)',
        });
      }
      const ref = seen.responseSchemaRef;
      if (ref === undefined) return out('not_applicable', { note: 'the step names no response_schema_ref' });
      const result = seen.schema(ref, seen.body);
      if (result.ok) return out('passed', { expected: ref });
      const first = result.issues[0];
      return out('failed', {
        expected: ref,
        actual: result.issues.map((i) => `${i.pointer || '/'}: ${i.message}`),
        json_pointer: first?.pointer ?? '',
        note: `${result.issues.length} schema issue(s)`,
      });
    }
    case 'field_present':
    case 'envelope_field_present': {
      const found = field(seen.body, path ?? '');
      const ok = found !== undefined && found.value !== undefined && found.value !== null;
      return pass(ok, {
        json_pointer: found?.pointer ?? pointerOf(path ?? ''),
        expected: path,
        actual: ok ? found.value : null,
      });
    }
    case 'field_absent': {
      const found = field(seen.body, path ?? '');
      const ok = found === undefined || found.value === undefined;
      return pass(ok, {
        json_pointer: found?.pointer ?? pointerOf(path ?? ''),
        expected: null,
        actual: found?.value ?? null,
      });
    }
    case 'field_value': {
      const found = field(seen.body, path ?? '');
      const ok = found !== undefined && matches(found.value);
      return pass(ok, {
        json_pointer: found?.pointer ?? pointerOf(path ?? ''),
        expected: expectedValue,
        actual: found === undefined ? '(absent)' : found.value,
      });
    }
    case 'field_value_or_absent': {
      const found = field(seen.body, path ?? '');
      const ok = found === undefined || found.value === undefined || matches(found.value);
      return pass(ok, {
        json_pointer: found?.pointer ?? pointerOf(path ?? ''),
        expected: expectedValue,
        actual: found?.value ?? '(absent)',
      });
    }
    case 'field_contains': {
      const all = resolveAll(seen.body, path ?? '');
      const candidates = hasValue ? [validation['value']] : (allowed ?? []);
      // A path that ends on an array checks its members; with [*] each resolved value is a member.
      const members = all.flatMap((f) => (Array.isArray(f.value) && !/\[\*\]$/.test(path ?? '') ? f.value : [f.value]));
      const ok = members.some((m) => candidates.some((c) => deepSubset(c, m)));
      return pass(ok, {
        json_pointer: all[0]?.pointer ?? pointerOf(path ?? ''),
        expected: expectedValue,
        actual: all.length === 0 ? '(absent)' : members.slice(0, 20),
      });
    }
    case 'field_pattern':
    case 'envelope_field_pattern': {
      const found = field(seen.body, path ?? '');
      const pattern = str(validation['pattern']) ?? '';
      let ok = false;
      try {
        ok = typeof found?.value === 'string' && new RegExp(pattern).test(found.value);
      } catch {
        return out('not_applicable', { note: `the storyboard's pattern ${pattern} is not a valid regular expression` });
      }
      return pass(ok, {
        json_pointer: found?.pointer ?? pointerOf(path ?? ''),
        expected: { pattern },
        actual: found?.value ?? '(absent)',
      });
    }
    case 'envelope_field_absent': {
      const found = field(seen.body, path ?? '');
      return pass(found === undefined, {
        json_pointer: pointerOf(path ?? ''),
        expected: null,
        actual: found === undefined ? null : found.value,
      });
    }
    case 'error_code': {
      // Without value or allowed_values: any typed error code passes ("Response surfaces a typed error code").
      const ok = seen.errorCode !== undefined && (expectedValue === undefined || matches(seen.errorCode));
      return pass(ok, {
        json_pointer: errorPointer(seen.body),
        expected: expectedValue ?? '(any error code)',
        actual:
          seen.errorCode ??
          (seen.status === 'http_error' ? `HTTP ${seen.httpStatus}` : `(no error: status ${seen.status})`),
      });
    }
    case 'http_status':
    case 'status_code': {
      const ok = seen.httpStatus !== undefined && deepEqual(validation['value'], seen.httpStatus);
      return pass(ok, { expected: validation['value'], actual: seen.httpStatus ?? '(no HTTP status observed)' });
    }
    case 'http_status_in': {
      const ok = seen.httpStatus !== undefined && (allowed ?? []).includes(seen.httpStatus);
      return pass(ok, { expected: allowed, actual: seen.httpStatus ?? '(no HTTP status observed)' });
    }
    case 'on_401_require_header': {
      if (seen.httpStatus !== 401)
        return out('passed', { expected: validation['value'], actual: `HTTP ${seen.httpStatus ?? '?'} (not 401)` });
      const name = (str(validation['value']) ?? '').toLowerCase();
      const header = seen.httpHeaders?.[name];
      return pass(header !== undefined, { expected: name, actual: header ?? '(absent)' });
    }
    case 'field_equals_context': {
      const key = str(validation['context_key']) ?? '';
      if (!Object.hasOwn(seen.context, key)) {
        return out('passed', { note: `context_key_absent: ${key} was not captured (its step was skipped)` });
      }
      const found = field(seen.body, path ?? '');
      const ok = found !== undefined && deepEqual(found.value, seen.context[key]);
      return pass(ok, {
        json_pointer: found?.pointer ?? pointerOf(path ?? ''),
        expected: seen.context[key],
        actual: found?.value ?? '(absent)',
      });
    }
    case 'field_less_than': {
      const key = str(validation['context_key']);
      if (key !== undefined && !Object.hasOwn(seen.context, key)) {
        return out('passed', { note: `context_key_absent: ${key} was not captured (its step was skipped)` });
      }
      const bound = key === undefined ? validation['value'] : seen.context[key];
      const found = field(seen.body, path ?? '');
      const ok =
        typeof found?.value === 'number' &&
        typeof bound === 'number' &&
        Number.isFinite(found.value) &&
        found.value < bound;
      return pass(ok, {
        json_pointer: found?.pointer ?? pointerOf(path ?? ''),
        expected: bound,
        actual: found?.value ?? '(absent)',
      });
    }
    case 'any_of': {
      const hit = (allowed ?? []).find((flag): flag is string => typeof flag === 'string' && seen.flags.has(flag));
      return pass(hit !== undefined, {
        expected: allowed,
        actual: hit === undefined ? '(no branch contributed)' : `${hit} contributed by ${seen.flags.get(hit)}`,
      });
    }
    case 'resource_equals_agent_url': {
      const found = field(seen.body, path ?? 'resource');
      const norm = (u: unknown) => (typeof u === 'string' ? u.replace(/\/+$/, '').toLowerCase() : u);
      return pass(norm(found?.value) === norm(seen.agentUrl), {
        expected: seen.agentUrl,
        actual: found?.value ?? '(absent)',
      });
    }
    case 'refs_resolve':
      return refsResolve(validation, seen, out);
    case 'a2a_submitted_artifact': {
      if (seen.protocol !== 'a2a') return out('not_applicable', { note: 'an A2A-only check, and this run speaks MCP' });
      const ok = seen.status === 'submitted' || (isObj(seen.body) && seen.body['status'] === 'submitted');
      return pass(ok, { expected: 'submitted', actual: seen.status });
    }
    default:
      return out('not_applicable', {
        note: `this runner does not implement the check ${check}: graded not applicable (runner-output-contract.yaml, validation_result, forward compatibility)`,
      });
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function errorPointer(body: unknown): string | null {
  if (!isObj(body)) return null;
  if (isObj(body['adcp_error'])) return '/adcp_error/code';
  if (Array.isArray(body['errors'])) return '/errors/0/code';
  return null;
}

function refsResolve(
  validation: Validation,
  seen: Observation,
  out: (verdict: ValidationOutcome['verdict'], rest: Partial<ValidationOutcome>) => ValidationOutcome,
): ValidationOutcome {
  const side = (spec: unknown) => {
    if (!isObj(spec)) return [];
    const root = spec['from'] === 'context' ? seen.context : seen.body;
    return resolveAll(root, str(spec['path']) ?? '').map((f) => f.value);
  };
  const keys = Array.isArray(validation['match_keys']) ? (validation['match_keys'] as string[]) : [];
  const norm = (key: string, v: unknown) =>
    key.endsWith('url') && typeof v === 'string' ? v.replace(/\/+$/, '').toLowerCase() : v;
  const project = (ref: unknown) => (isObj(ref) ? keys.map((k) => norm(k, ref[k])) : [ref]);
  const scope = isObj(validation['scope']) ? validation['scope'] : undefined;
  const scopeKey = str(scope?.['key']);
  const scopeValue = scope?.['equals'] === '$agent_url' ? seen.agentUrl : scope?.['equals'];
  const sources = side(validation['source']);
  const targets = side(validation['target']).map(project);
  const missing: unknown[] = [];
  const outOfScope: unknown[] = [];
  for (const ref of sources) {
    if (scopeKey !== undefined && isObj(ref) && norm(scopeKey, ref[scopeKey]) !== norm(scopeKey, scopeValue)) {
      outOfScope.push(ref);
      continue;
    }
    const p = project(ref);
    if (p.some((v) => v === undefined) || !targets.some((t) => deepEqual(t, p)))
      missing.push(Object.fromEntries(keys.map((k, i) => [k, p[i]])));
  }
  const mode = validation['on_out_of_scope'] ?? 'warn';
  if (mode === 'fail') missing.push(...outOfScope);
  const unique = [...new Map(missing.map((m) => [JSON.stringify(m), m])).values()];
  return out(unique.length === 0 ? 'passed' : 'failed', {
    expected: { match_keys: keys },
    actual: {
      missing: unique.slice(0, 50),
      ...(outOfScope.length > 0 && mode === 'warn' ? { out_of_scope: outOfScope.length } : {}),
    },
  });
}
