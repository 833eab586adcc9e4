/**
 * The recorded defects of the official runner (@adcp/sdk 6.11, test/peers/adcp-sdk): the reason a
 * step it grades may differ from the spec's verdict. Each names its decision record, which quotes
 * the request, the answer and the spec text. Shared by agreement.test.ts (the two runners on the
 * reference seller) and official-runner-serve.test.ts (the official runner on `adcp serve`).
 */
export interface RunnerDefect {
  /** The letter the decision record gives it. */
  letter: string;
  decision: '0204' | '0224' | '0229' | '0205';
  /** The verdict the official runner gives the step. */
  theirs: 'failed' | 'passed' | 'skipped';
  /** Matched against the runner's reason for its verdict. */
  match: RegExp;
  /** When set, matched against `storyboard/phase/step`: the defect shows only on those steps. */
  steps?: RegExp;
  /** When set, the failed validation (its `expected` and `actual`) must bear the defect out. */
  holds?: (validation: FailedValidation) => boolean;
  why: string;
}

/** A failed validation as the official runner reports it. */
export interface FailedValidation {
  check?: string;
  expected?: unknown;
  actual?: unknown;
  /** What the runner sent and got back (`transport`, `url`, `payload`; `status` on a raw probe). */
  request?: { transport?: string; url?: string; payload?: unknown };
  response?: { transport?: string; status?: number; payload?: unknown };
}

/** `actual` holds every field of `expected`, recursively (storyboard-schema.yaml's "deep subset"). */
export function deepSubset(expected: unknown, actual: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) && expected.length === actual.length && expected.every((e, i) => deepSubset(e, actual[i]))
    );
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([k, v]) => deepSubset(v, (actual as Record<string, unknown>)[k]));
  }
  return Object.is(expected, actual);
}

/** The steps of deterministic-testing.yaml (and the triggers and creates that reuse its product) buying `test-product`. */
const TEST_PRODUCT_CREATES =
  /^(deterministic_testing\/[^/]+\/create_media_buy[a-z_]*|idempotency\/replay_same_payload\/create_media_buy_initial|webhook_emission\/[^/]+\/trigger_[a-z_]+)$/;

export const THEIR_DEFECTS: RunnerDefect[] = [
  {
    letter: 'F',
    decision: '0224',
    theirs: 'failed',
    steps: TEST_PRODUCT_CREATES,
    match: /Task [0-9a-f-]+ failed|Task failed/,
    why: 'F: it buys test-product with pricing_option_id "default", an option no fixture declares, and the seller refuses it',
  },
  {
    letter: 'A',
    decision: '0224',
    theirs: 'failed',
    match:
      /got "MCP error -32603: Task [0-9a-f-]+ failed"|requires an MCP task result|Field not found at path: (context|adcp_error)$/,
    why: 'A: it cannot read the result of a failed MCP Task (an AdCP error of a task-augmented call), nor grade a step it sends as a raw HTTP probe',
  },
  {
    letter: 'E',
    decision: '0229',
    theirs: 'failed',
    match: /got "Task failed"/,
    why: "E: over A2A it reads a failed A2A Task as 'Task failed', not the adcp_error DataPart of its artifact",
  },
  {
    letter: 'B',
    decision: '0224',
    theirs: 'failed',
    match: /UNKNOWN_SCENARIO/,
    why: 'B: it fails an UNKNOWN_SCENARIO controller answer, a documented coverage gap',
  },
  {
    letter: 'G',
    decision: '0205',
    theirs: 'failed',
    match: /Expected "active", got "pending_start"/,
    holds: (v) => {
      const sent = v.request?.payload as { start_time?: unknown } | undefined;
      return v.check === 'field_value' && typeof sent?.start_time === 'string' && sent.start_time !== 'asap';
    },
    why: 'G: its request builder replaces the storyboard\'s start_time "asap" with a time of its own a day ahead, so the buy is rightly pending_start, not active',
  },
  {
    letter: 'H',
    decision: '0205',
    theirs: 'failed',
    match: /to appear in path/,
    holds: (v) =>
      v.check === 'field_contains' &&
      Array.isArray(v.actual) &&
      v.actual.some((element) => deepSubset(v.expected, element)),
    why: 'H: field_contains compares objects whole (JSON.stringify); the spec matches them as deep subsets, and the answer holds every expected field',
  },
  {
    letter: 'K',
    decision: '0205',
    theirs: 'failed',
    match: /\$build_assets_from_format/,
    why: 'K: it sends $build_assets_from_format unexpanded (its own request validation refuses it before transport)',
  },
  {
    letter: 'unsigned',
    decision: '0204',
    theirs: 'failed',
    match: /request_signature_required|Authentication required for/,
    holds: (v) => /"push_notification_config":\{[^}]*"authentication"/.test(JSON.stringify(v.request?.payload ?? null)),
    why: '0204: it neither signs nor drops push_notification_config.authentication, which a signing seller MUST refuse unsigned (401)',
  },
  {
    letter: 'L',
    decision: '0205',
    theirs: 'failed',
    match: /./,
    holds: (v) =>
      v.request?.transport === 'mcp' &&
      ((v.response?.status === 400 && /send initialize first/.test(JSON.stringify(v.response.payload ?? null))) ||
        (/\/a2a$/.test(v.request.url ?? '') && /"Method not found"/.test(JSON.stringify(v.response?.payload ?? null)))),
    why: 'L: its raw probes post a bare MCP tools/call (no initialize, no request metadata), to the A2A endpoint too',
  },
  {
    letter: 'N',
    decision: '0205',
    theirs: 'failed',
    match: /compliance_testing\.scenarios\.\d+: Invalid input/,
    why: 'N: it checks a 3.1 answer (adcp_version "3.1") against its 3.0.6 schema, whose scenario enum lacks the 3.1 ones',
  },
  {
    letter: 'N',
    decision: '0205',
    theirs: 'failed',
    steps: /^read_tool_idempotency\/omitted_key_grace_(reject_path|assertion)\//,
    match: /Expected error code "INVALID_REQUEST", got "undefined"|Probe validations failed/,
    why: "N, cascading: the grace branch's get_adcp_capabilities failed N, so the runner grades the reject branch the seller did not take",
  },
  {
    letter: 'N',
    decision: '0205',
    theirs: 'failed',
    match: /products\.\d+\.format_ids: Invalid input: expected array, received undefined/,
    why: "N: it checks a 3.1 get_products answer against 3.0.6's product schema, which requires format_ids; 3.1's takes format_options alone, as seeded fixtures declare it",
  },
  {
    letter: 'N',
    decision: '0205',
    theirs: 'failed',
    steps:
      /^(webhook_emission\/synchronous_completion_(assertion\/assert_synchronous_completion_handled|rejection_path\/sync_get_products_with_webhook_config_reject)|media_buy_seller\/proposal_finalize_asap_timing\/accept_proposal\/create_media_buy)$/,
    match: /Probe validations failed|Task [0-9a-f-]*\s*failed|Expected one of \[.*\], got undefined/,
    why: "N, cascading: the get_products before it failed N, so the runner grades the branch the seller did not take and its any_of has no passed branch, or it keeps no products to build the buy's packages from",
  },
  {
    letter: 'D',
    decision: '0224',
    theirs: 'failed',
    match: /is not in the lifecycle graph/,
    why: "D: it reads create_media_buy's 3.1 envelope status as a media-buy status",
  },
];

/**
 * The recorded defect that explains the official runner's `verdict` of a step (`storyboard/phase/step`),
 * if any; `validation` is its first failed validation, when the caller has it.
 */
export function theirDefect(
  step: string,
  verdict: string | undefined,
  reason: string,
  validation?: FailedValidation,
): RunnerDefect | undefined {
  return THEIR_DEFECTS.find(
    (d) =>
      d.theirs === verdict &&
      d.match.test(reason) &&
      (d.steps === undefined || d.steps.test(step)) &&
      (d.holds === undefined || (validation !== undefined && d.holds(validation))),
  );
}
