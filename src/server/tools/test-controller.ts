import type { JsonObject } from '../../core/types.js';
import { isJsonObject } from '../../core/json-object.js';
import { parseWireVersion } from '../../schemas/release.js';
import type { AdcpToolDefinition, ToolContext } from '../types.js';

/** The controller's own error vocabulary (comply-test-controller.md, "Error codes"), not `adcp_error` codes. */
export type ControllerErrorCode =
  | 'INVALID_TRANSITION'
  | 'INVALID_STATE'
  | 'NOT_FOUND'
  | 'UNKNOWN_SCENARIO'
  | 'INVALID_PARAMS'
  | 'FORBIDDEN'
  | 'INTERNAL_ERROR';

/**
 * Thrown by a scenario handler to refuse: answered as the ControllerError branch
 * `{ success: false, error, error_detail, current_state? }`.
 */
export class ControllerError extends Error {
  override readonly name = 'ControllerError';
  readonly code: ControllerErrorCode;
  /** The entity's state when it exists (`null`: it does not). */
  readonly currentState: string | null | undefined;

  constructor(code: ControllerErrorCode, detail: string, options: { currentState?: string | null } = {}) {
    super(detail);
    this.code = code;
    this.currentState = options.currentState;
  }
}

/** Runs one scenario: `params` is an object; answer with the scenario's success fields (`success` is added). */
export type ControllerScenario = (params: JsonObject, context: ToolContext) => JsonObject | Promise<JsonObject>;

export interface TestControllerOptions {
  /** Handlers by canonical scenario name (`force_media_buy_status`, `seed_product`, ...). */
  scenarios: Record<string, ControllerScenario>;
  /**
   * Whether this caller's account is a sandbox account. `false` refuses every scenario with
   * `FORBIDDEN` before dispatch (comply-controller-mode-gate). Default: every caller is (a
   * deployment that serves the controller is a sandbox deployment).
   */
  isSandbox?: (context: ToolContext, args: JsonObject) => boolean | Promise<boolean>;
}

/** The scenario names a seller may implement: the request schema's `scenario` enum (3.1). */
export const CONTROLLER_SCENARIOS = [
  'force_creative_status',
  'force_creative_purge',
  'force_account_status',
  'force_media_buy_status',
  'compact_product_lifecycle_probe',
  'compact_direct_buy_lifecycle_probe',
  'force_create_media_buy_arm',
  'force_get_products_arm',
  'force_get_signals_arm',
  'force_task_completion',
  'force_session_status',
  'simulate_delivery',
  'simulate_budget_spend',
  'seed_account',
  'seed_rights_grant',
  'seed_product',
  'seed_pricing_option',
  'seed_creative',
  'seed_plan',
  'seed_media_buy',
  'seed_creative_format',
  'seed_measurement_catalog',
  'query_upstream_traffic',
  'query_provenance_audit_observations',
  'force_upstream_unavailable',
] as const;

/** Params each scenario needs (the request schema's per-scenario `required`), checked before dispatch. */
const REQUIRED_PARAMS: Record<string, string[]> = {
  force_creative_status: ['creative_id', 'status'],
  force_creative_purge: ['creative_id'],
  force_account_status: ['account_id', 'status'],
  force_media_buy_status: ['media_buy_id', 'status'],
  force_session_status: ['session_id', 'status'],
  force_task_completion: ['task_id', 'result'],
  simulate_delivery: ['media_buy_id'],
  seed_account: ['account_id'],
  seed_product: ['product_id'],
  seed_pricing_option: ['product_id', 'pricing_option_id'],
  seed_creative: ['creative_id'],
  seed_plan: ['plan_id'],
  seed_media_buy: ['media_buy_id'],
  seed_creative_format: ['format_id'],
};

function failure(code: ControllerErrorCode, detail: string, currentState?: string | null): JsonObject {
  const body: JsonObject = { success: false, error: code, error_detail: detail };
  if (currentState !== undefined) body.current_state = currentState;
  return body;
}

/** Why `params` cannot go to a scenario, or undefined when they can. */
function checkParams(scenario: string, params: unknown): string | undefined {
  if (!isJsonObject(params)) return 'params must be an object.';
  for (const name of REQUIRED_PARAMS[scenario] ?? []) {
    const value = params[name];
    if (value === undefined || value === null || value === '') return `params.${name} is required for ${scenario}.`;
  }
  if (params.status === 'rejected' && scenario !== 'force_session_status' && scenario.endsWith('_status')) {
    if (scenario !== 'force_account_status' && typeof params.rejection_reason !== 'string') {
      return `params.rejection_reason is required when status is rejected.`;
    }
  }
  return undefined;
}

/**
 * The `comply_test_controller` tool (comply-test-controller.md): `list_scenarios`, the sandbox
 * gate (FORBIDDEN for a live account, before any dispatch), `UNKNOWN_SCENARIO` for a scenario this
 * seller does not implement, `INVALID_PARAMS` for missing params, and the seller's handlers for
 * the rest. The controller answers in its own schema (`success` true/false), never `adcp_error`,
 * and checks its arguments itself: an unknown scenario name is UNKNOWN_SCENARIO, not a schema error.
 * Register it only on a sandbox deployment (createAdcpServer's `testController`).
 */
export function createTestControllerTool(options: TestControllerOptions): AdcpToolDefinition {
  const scenarios = new Map(Object.entries(options.scenarios));
  for (const [name, handler] of scenarios) {
    // The scenario enum is open for extension: a name not in CONTROLLER_SCENARIOS is allowed.
    if (name === 'list_scenarios' || typeof handler !== 'function') {
      throw new TypeError(`testController: scenario ${name} needs a function (list_scenarios is built in)`);
    }
  }
  const listed = [...scenarios.keys()].sort();
  return {
    name: 'comply_test_controller',
    description: 'Triggers seller-side state transitions for compliance testing. Sandbox only.',
    inputSchema: {
      type: 'object',
      properties: {
        scenario: { type: 'string', description: 'list_scenarios, or a force_*, simulate_* or seed_* scenario.' },
        params: { type: 'object', description: 'Scenario-specific parameters.' },
        account: { type: 'object' },
        brand: { type: 'object' },
        context: { type: 'object' },
        ext: { type: 'object' },
        adcp_version: { type: 'string' },
        adcp_major_version: { type: 'integer' },
      },
      required: ['scenario'],
      additionalProperties: true,
    },
    taskSupport: 'forbidden',
    validateRequest: false,
    // Naturally idempotent (its request schema): no idempotency_key, though the manifest says mutating.
    mutating: false,
    async handler(args, context) {
      if (options.isSandbox !== undefined && !(await options.isSandbox(context, args))) {
        return failure('FORBIDDEN', 'comply_test_controller requires a sandbox account; this account is live.');
      }
      const scenario = args.scenario;
      if (scenario === 'list_scenarios') return { success: true, scenarios: listed };
      if (typeof scenario !== 'string' || !scenarios.has(scenario)) {
        return failure('UNKNOWN_SCENARIO', 'This seller does not implement that scenario (see list_scenarios).');
      }
      const params = args.params ?? {};
      const invalid = checkParams(scenario, params);
      if (invalid !== undefined) return failure('INVALID_PARAMS', invalid);
      try {
        const answer = await scenarios.get(scenario)!(params as JsonObject, context);
        return { ...answer, success: true };
      } catch (error) {
        if (error instanceof ControllerError) return failure(error.code, error.message, error.currentState);
        return failure('INTERNAL_ERROR', 'The controller failed; retry once.');
      }
    },
  };
}

/**
 * The scenarios 3.0's `compliance_testing.scenarios` enum admits; 3.1 opened the list to any
 * string ("Sellers SHOULD list every canonical controller scenario they implement").
 */
const ADVERTISABLE_IN_3_0 = new Set([
  'force_creative_status',
  'force_account_status',
  'force_media_buy_status',
  'force_session_status',
  'simulate_delivery',
  'simulate_budget_spend',
]);

/**
 * The `compliance_testing` block of `get_adcp_capabilities` for a caller answered in `release`:
 * every scenario served (3.1 on), or those 3.0's enum can name for a 3.0 caller; undefined when
 * none can be named.
 */
export function complianceTestingCapability(options: TestControllerOptions, release: string): JsonObject | undefined {
  const only30 = parseWireVersion(release)?.major === 3 && parseWireVersion(release)?.minor === 0;
  const scenarios = Object.keys(options.scenarios)
    .filter((name) => !only30 || ADVERTISABLE_IN_3_0.has(name))
    .sort();
  return scenarios.length === 0 ? undefined : { scenarios };
}

/** Adds `compliance_testing` to the `get_adcp_capabilities` answer (unless its handler set one). */
export function advertiseComplianceTesting(
  tools: Map<string, AdcpToolDefinition>,
  options: TestControllerOptions,
): void {
  const tool = tools.get('get_adcp_capabilities');
  if (tool === undefined) return;
  tools.set(tool.name, {
    ...tool,
    async handler(args, context) {
      const answer = await tool.handler(args, context);
      const capability = complianceTestingCapability(options, context.adcpVersion);
      return capability === undefined || answer.compliance_testing !== undefined || answer.adcp_error !== undefined
        ? answer
        : { ...answer, compliance_testing: capability };
    },
  });
}
