import type { AdcpError, JsonObject } from '../../core/types.js';
import { getValidator } from '../../schemas/adcp-validator.js';
import { compareWireVersions, parseWireVersion } from '../../schemas/release.js';
import { describeIssues, pointerToField, type ValidationIssue } from '../../schemas/validation-result.js';
import { loadSchemaBundle } from '../../schemas/schema-bundle.js';
import { negotiateVersion } from './negotiate-version.js';

/** enums/adcp-protocol.json: the protocols a task can belong to (get_task_status `protocol`). */
const TASK_PROTOCOLS = [
  'media-buy',
  'signals',
  'governance',
  'creative',
  'brand',
  'sponsored-intelligence',
  'measurement',
];

/** What to do with a handler's answer that does not match the response schema. */
export type ResponseValidation = 'off' | 'warn' | 'strict';

/** An answer that failed its response schema (for `onInvalidResponse`). */
export interface InvalidResponse {
  tool: string;
  release: string;
  schema: string | undefined;
  issues: ValidationIssue[];
}

export interface AdcpServingOptions {
  /** Releases served (release precision). Default `['3.0', '3.1']`. */
  adcpVersions?: string[];
  /** Release served when the caller names none. Default: the highest stable of `adcpVersions`. */
  adcpVersion?: string;
  /** Check arguments against the negotiated release's request schema. Default true (schemas.md: MUST). */
  validateRequests?: boolean;
  /**
   * Check answers against the response schema: `warn` (a process warning, or `onInvalidResponse`,
   * per invalid answer), `strict` (the caller gets a `CONFIGURATION_ERROR` instead) or `off`.
   * Default `warn` unless `NODE_ENV` is `production`, then `off` (decision 0169): a typed handler
   * can still compile and answer what the schema refuses (a pattern, a bound, a rule between fields).
   */
  validateResponses?: ResponseValidation;
  /** Called for every invalid answer in `warn` and `strict` (default in `warn`: a process warning). */
  onInvalidResponse?: (invalid: InvalidResponse) => void;
}

/** The server's version and validation policy, shared by the MCP and A2A endpoints. */
export interface AdcpServing {
  readonly supported: readonly string[];
  readonly defaultRelease: string;
  /** Negotiates the release and checks the arguments; an `error` is the answer to send instead. */
  prepare(tool: string, args: JsonObject, options?: { validate?: boolean }): { release: string; error?: AdcpError };
  /** The manifest `protocol` of an AdCP tool (`media-buy`), when it is one of the task protocols. */
  protocolOf(tool: string): string | undefined;
  /** Checks an answer (`strict` turns an invalid one into an error answer's `adcp_error`). */
  checkAnswer(tool: string, body: JsonObject, release: string): AdcpError | undefined;
}

/**
 * Builds the policy and fails fast (AdcpSchemaError) when validation is on and a served release
 * has no schemas on disk.
 */
export function createAdcpServing(options: AdcpServingOptions = {}): AdcpServing {
  const supported = [...(options.adcpVersions ?? ['3.0', '3.1'])];
  if (supported.length === 0 || supported.some((v) => parseWireVersion(v) === undefined)) {
    throw new TypeError('createAdcpServer: adcpVersions must list release-precision versions such as "3.1"');
  }
  supported.sort(compareWireVersions);
  const stable = supported.filter((v) => parseWireVersion(v)?.prerelease === undefined);
  const defaultRelease = options.adcpVersion ?? stable[stable.length - 1] ?? supported[supported.length - 1]!;
  if (!supported.includes(defaultRelease)) {
    throw new TypeError(
      `createAdcpServer: adcpVersion ${defaultRelease} is not one of adcpVersions (${supported.join(', ')})`,
    );
  }
  const validateRequests = options.validateRequests ?? true;
  const validateResponses = options.validateResponses ?? defaultResponseValidation();
  if (!['off', 'warn', 'strict'].includes(validateResponses)) {
    throw new TypeError("createAdcpServer: validateResponses must be 'off', 'warn' or 'strict'");
  }
  if (validateRequests || validateResponses !== 'off') for (const release of supported) getValidator(release);
  const report =
    options.onInvalidResponse ??
    ((invalid: InvalidResponse) =>
      process.emitWarning(
        `${invalid.tool} answered with a body that does not match AdCP ${invalid.release} (${invalid.schema}): ${describeIssues(invalid.issues)}`,
        'AdcpResponseWarning',
      ));

  return {
    supported,
    defaultRelease,
    protocolOf(tool) {
      try {
        const protocol = loadSchemaBundle(defaultRelease).tool(tool)?.protocol;
        return protocol !== undefined && TASK_PROTOCOLS.includes(protocol) ? protocol : undefined;
      } catch {
        return undefined; // no schemas on disk: the field is left out
      }
    },
    prepare(tool, args, prepareOptions) {
      const negotiated = negotiateVersion(args, supported, defaultRelease);
      if (!negotiated.ok) return { release: defaultRelease, error: negotiated.error };
      const release = negotiated.release;
      if (!validateRequests || prepareOptions?.validate === false) return { release };
      const checked = getValidator(release).request(tool, args);
      if (checked.ok) return { release };
      const first = checked.issues[0];
      return {
        release,
        error: {
          code: 'INVALID_REQUEST',
          message: `The arguments do not match the AdCP ${release} schema of ${tool}: ${describeIssues(checked.issues, 3)}`,
          recovery: 'correctable',
          field: first === undefined ? '' : pointerToField(first.pointer),
          issues: checked.issues,
        },
      };
    },
    checkAnswer(tool, body, release) {
      if (validateResponses === 'off') return undefined;
      const validator = getValidator(release);
      const error = body['adcp_error'];
      const checked =
        error !== undefined
          ? validator.schema('core/error.json', error)
          : validator.result(tool, typeof body['status'] === 'string' ? body['status'] : 'completed', body);
      if (checked.ok) return undefined;
      report({ tool, release, schema: checked.schema, issues: checked.issues });
      if (validateResponses !== 'strict') return undefined;
      return {
        code: 'CONFIGURATION_ERROR',
        message: `The agent's answer to ${tool} does not match the AdCP ${release} response schema.`,
        recovery: 'terminal',
      };
    },
  };
}

/** `warn` while developing, `off` in production (`NODE_ENV=production`), read when a server is made. */
export function defaultResponseValidation(env: Record<string, string | undefined> = process.env): ResponseValidation {
  return env['NODE_ENV'] === 'production' ? 'off' : 'warn';
}
