import type { JsonObject } from '../core/types.js';

/**
 * The verdict of a step or a storyboard, kept apart as issue 35 asks: `passed`; `failed` (the
 * agent's doing); `not_applicable` (a gate said so: `gate` names it); `skipped` (another step
 * caused it: `cause` names it); `harness_fault` (the runner or the environment, never the agent).
 */
export type Verdict = 'passed' | 'failed' | 'not_applicable' | 'skipped' | 'harness_fault';

/** The canonical skip reasons of runner-output-contract.yaml (`skip_result.reason`). */
export type SkipReason =
  | 'not_applicable'
  | 'no_phases'
  | 'prerequisite_failed'
  | 'missing_tool'
  | 'missing_test_controller'
  | 'unsatisfied_contract'
  | 'peer_branch_taken'
  | 'peer_substituted'
  | 'requirement_unmet';

/** One graded validation: what was checked, where, what was expected and what came back. */
export interface ValidationOutcome {
  check: string;
  /** The storyboard's own description of the validation. */
  description: string;
  /** `not_applicable`: a check this runner does not implement (forward compatibility) or a gate. */
  verdict: 'passed' | 'failed' | 'not_applicable';
  /** `advisory` failures do not fail the step (storyboard-schema.yaml, "severity"). */
  severity: 'required' | 'advisory';
  /** The storyboard's path, as written. */
  path?: string;
  /** RFC 6901 pointer into the response (or the request), `null` when none applies. */
  json_pointer: string | null;
  expected: unknown;
  actual: unknown;
  /** Why, in a sentence, when it failed or was not graded. */
  note?: string;
}

/** The spec text a verdict comes from. */
export interface SpecSource {
  /** The storyboard file (`universal/idempotency.yaml`) and where in it (`phases[2].steps[0]`). */
  storyboard: string;
  location: string;
  /** The storyboard's `doc_ref` (a spec page) when it has one. */
  doc_ref?: string;
  /** The storyboard's `expected:` text for the step. */
  expected_text?: string;
}

export interface StepOutcome {
  phase_id: string;
  step_id: string;
  title: string;
  task: string;
  verdict: Verdict;
  /** For `not_applicable` and `skipped`: the canonical reason and its detail (the gate, the step). */
  skip?: { reason: SkipReason; detail: string };
  /** For `skipped` with `prerequisite_failed`: `phase/step` that caused it. */
  cause?: string;
  /** For `harness_fault`: what went wrong on our side or in the environment. */
  fault?: string;
  /** For `failed` without a failed validation (the call itself failed): what happened. */
  error?: string;
  /** Fields of the request the runner's per-task request builder supplied (decision 0225). */
  built?: { pointer: string; from: string }[];
  /** The request as sent (credentials never included). */
  request?: { tool: string; args: JsonObject; auth?: string };
  /** The answer: its status and body, or the HTTP status when the call was refused at the door. */
  response?: { status: string; body?: unknown; http_status?: number; error_code?: string };
  validations: ValidationOutcome[];
  /** Optional phase (a failure there does not fail the storyboard by itself). */
  optional?: boolean;
  duration_ms: number;
  source: SpecSource;
}

export interface StoryboardOutcome {
  id: string;
  title: string;
  file: string;
  kind: string;
  verdict: Verdict;
  /** Why the storyboard as a whole was not run, or what cut it short. */
  detail?: string;
  skip?: { reason: SkipReason; detail: string };
  /** Set when the run's budget or an abort stopped the storyboard before its last step. */
  cut_short?: string;
  steps: StepOutcome[];
  duration_ms: number;
  /** Connections (MCP sessions, A2A clients) opened for the storyboard. */
  sessions: number;
  /** Why the storyboard was selected (`universal`, `supported_protocols: media_buy`, `--id`, ...). */
  selected_because: string;
}

export interface StepCounts {
  passed: number;
  failed: number;
  not_applicable: number;
  skipped: number;
  harness_fault: number;
}

export interface RunReport {
  agent: string;
  protocol: 'mcp' | 'a2a';
  /** The compliance release graded against and the AdCP release the client spoke. */
  release: string;
  adcp_version: string;
  compliance_source: string;
  started_at: string;
  duration_ms: number;
  storyboards: StoryboardOutcome[];
  /** Storyboards, and steps over all storyboards, by verdict. */
  counts: { storyboards: StepCounts; steps: StepCounts };
  /** Set when the run stopped before every selected storyboard ran (budget, abort). */
  cut_short?: string;
  /** Notes on the run (fixtures not seeded, agent facts). */
  notices: string[];
  /**
   * What `adcp storyboard run` exits with (decision 0238): 1 when a storyboard failed (the agent),
   * else 4 when the run is incomplete (cut short, or a storyboard not fully graded: a harness
   * fault), else 0. So 0 means every selected storyboard was graded and nothing the agent owns
   * failed.
   */
  exit_code: 0 | 1 | 4;
}

/** The fault of a step the agent refused with HTTP 401 when the run sends no credentials at all (decision 0244). */
export const NO_CREDENTIALS =
  "the agent asks for credentials (HTTP 401) and this run sends none: not graded; give the agent's token with --auth TOKEN (adcp serve prints its sandbox bearer token)";

/**
 * The fault of a step the agent refused with HTTP 401 `request_signature_required` when the run
 * does not sign: a conformant buyer signs what the agent requires signed (security.md, "Webhook
 * callbacks" and `request_signing.required_for`), so the step is not graded.
 */
export const NO_SIGNATURE =
  'the agent requires an RFC 9421 request signature on this call (HTTP 401, Signature error="request_signature_required") and this run does not sign: not graded; give a key the agent trusts with --sign-key FILE';

export function emptyCounts(): StepCounts {
  return { passed: 0, failed: 0, not_applicable: 0, skipped: 0, harness_fault: 0 };
}
