import { signatureChallengeError } from '../core/signature-challenge.js';
import type { A2AWireChoice } from '../core/a2a-wire.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { AdcpClient } from '../client/index.js';
import type { TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import { isAdcpWireError } from '../core/wire-error.js';
import { isJsonObject } from '../core/json-object.js';
import type { ValidationResult } from '../schemas/validation-result.js';
import type { RequestSigningOptions } from '../signing/sign-request.js';
import { grade, type Observation } from './checks.js';
import type { ComplianceRelease, Storyboard } from './load.js';
import { deepEqual, pointerOf, resolvePath } from './paths.js';
import { selectStoryboards, type Selected } from './select.js';
import { evaluateCondition, substitute, UnresolvedSubstitution, type SubstitutionScope } from './substitute.js';
import {
  emptyCounts,
  NO_CREDENTIALS,
  NO_SIGNATURE,
  type RunReport,
  type SkipReason,
  type StepOutcome,
  type StoryboardOutcome,
  type ValidationOutcome,
  type Verdict,
} from './types.js';
import { WebhookReceiver, type Delivery } from './webhook-receiver.js';
import { buildRequest, expandAssetDirectives, hasRequestBuilder } from './request-builder.js';
import {
  assertJwksPurpose,
  authServerMetadataUrl,
  failure,
  fetchBrandJwks,
  fetchJson,
  passing,
  protectedResourceUrl,
  type BrandKeys,
  type FetchRules,
} from './runner-tasks.js';
import { MemoryReplayStore } from '../signing/replay-store.js';
import { CALL_METHODS, runVectorPhase, type HttpRecord } from './signed-requests.js';
import { loadSigningVectors, type SigningVectorSet } from './signed-vectors.js';
import { verifyWebhookSignature } from '../webhooks/verify-webhook-signature.js';

export interface RunStoryboardsOptions {
  /** The agent: MCP endpoint or A2A agent URL. */
  agentUrl: string;
  /** The compliance suite to grade against (`loadComplianceDir`, `loadComplianceRelease`). */
  compliance: ComplianceRelease;
  /** `auto` (default) finds an A2A agent card at the URL, else speaks MCP. */
  protocol?: 'mcp' | 'a2a' | 'auto';
  /** Run exactly these storyboards (ids or files) instead of selecting them from the agent's capabilities. */
  ids?: readonly string[];
  /** Bearer credential for every call (never written to a report). */
  auth?: string;
  headers?: Record<string, string>;
  mcpEra?: 'auto' | 'modern' | 'legacy';
  a2aWire?: A2AWireChoice;
  /** The AdCP release the client speaks. Default: the compliance release's (`3.1.19` -> `3.1`). */
  adcpVersion?: string;
  /**
   * The built-in webhook receiver for `expect_webhook` steps: on by default on 127.0.0.1 (any
   * port); `publicUrl` is the base the agent is told when it cannot reach the listening address.
   * `false`: no receiver (webhook storyboards are not applicable).
   */
  webhooks?: false | { host?: string; port?: number; publicUrl?: string };
  /** The operator says prerequisite state was seeded out of band (`requires: [seeded_state]`). */
  seededState?: boolean;
  /** Deadline of one step (a call, a webhook wait), ms. Default 30 000. */
  stepTimeoutMs?: number;
  /** Deadline of the whole run, ms; the report says what it cut short. Default: none. */
  budgetMs?: number;
  signal?: AbortSignal;
  /** Validates a body against a schema of the release by path; default: the schemas room's validator. */
  schema?: (path: string, value: unknown) => ValidationResult;
  /** Told as the run goes (terminal progress). */
  onEvent?: (event: RunEvent) => void;
  /**
   * The request-signing conformance vectors folder (keys.json, positive/, negative/) the
   * signed_requests storyboard grades with, re-signed with its test keys (decision 0230). Default:
   * the compliance suite's test-vectors/request-signing/, when it has one.
   */
  signingVectors?: string;
  /** Sign every request (RFC 9421, AdCP request profile), as AdcpClient's `signing`. */
  signing?: RequestSigningOptions;
  /** Origins besides the agent's that `auth` and `headers` may go to (AdcpClient's `credentialOrigins`). */
  credentialOrigins?: readonly string[];
  /** Injected fetch (tests, proxies). */
  fetch?: typeof fetch;
  /**
   * Runner tasks may fetch plain-HTTP and private/loopback URLs the agent names (an OAuth issuer,
   * a brand.json, a jwks_uri), for local tests. Default false: https and public hosts only, except
   * on the agent's own origin (decision 0227).
   */
  allowHttp?: boolean;
  /** The agent's brand.json when its capabilities do not declare `identity.brand_json_url`. */
  brandJsonUrl?: string;
  /**
   * Offer the `rate_limit_trip_runner` contract: expect_rate_limit_not_replayed sends up to its
   * `max_attempts` (50-500) sequential writes to trip the agent's limiter. Default false (the step
   * is not applicable, as the storyboard says for runners without the contract).
   */
  rateLimitTrip?: boolean;
}

export type RunEvent =
  | { type: 'selected'; storyboards: { id: string; because: string }[] }
  | { type: 'storyboard_start'; id: string; title: string; index: number; total: number }
  | { type: 'step'; storyboard: string; step: StepOutcome }
  | { type: 'storyboard_end'; outcome: StoryboardOutcome; index: number; total: number };

/** Tasks the runner performs itself (storyboard-schema.yaml, "Webhook-assertion steps" and others). */
const RUNNER_TASKS = new Set([
  'expect_webhook',
  'expect_webhook_retry_keys_stable',
  'expect_webhook_signature_valid',
  'expect_substitution_safe',
  'expect_rate_limit_not_replayed',
  'assert_contribution',
  'protected_resource_metadata',
  'oauth_auth_server_metadata',
  'fetch_brand_jwks',
  'assert_jwks_purpose',
  'replay_webhook_vector',
]);

const FIXTURE_SEEDS: [string, string, string[]][] = [
  ['accounts', 'seed_account', ['account_id']],
  ['products', 'seed_product', ['product_id']],
  ['pricing_options', 'seed_pricing_option', ['product_id', 'pricing_option_id']],
  ['creatives', 'seed_creative', ['creative_id']],
  ['plans', 'seed_plan', ['plan_id']],
  ['media_buys', 'seed_media_buy', ['media_buy_id']],
];

/** The suite's default brand kit (the request builder's identity when a storyboard names none). */
const DEFAULT_BRAND_KIT = 'test-kits/acme-outdoor.yaml';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{16,255}$/;

/** `3.1.19` -> `3.1`; `3.2.0-beta.5` -> `3.2-beta.5`. */
export function releaseOf(version: string): string {
  const m = /^(\d+)\.(\d+)\.\d+(-.+)?$/.exec(version);
  return m === null ? version : `${m[1]}.${m[2]}${m[3] ?? ''}`;
}

/**
 * Grades an agent with a release's compliance storyboards: discovers it (`get_adcp_capabilities`
 * and its tools), selects the storyboards (or takes `ids`), and runs each over one connection of
 * its own, step by step, with every verdict explained. Never throws for what the agent does; a
 * run the budget or `signal` stops says so (`cut_short`).
 */
export async function runStoryboards(options: RunStoryboardsOptions): Promise<RunReport> {
  const started = Date.now();
  // Named storyboards are checked before anything starts (ComplianceError for an unknown id).
  if (options.ids !== undefined) selectStoryboards(options.compliance, undefined, { ids: options.ids });
  const adcpVersion = options.adcpVersion ?? releaseOf(options.compliance.version);
  const signals = [
    options.signal,
    options.budgetMs === undefined ? undefined : AbortSignal.timeout(options.budgetMs),
  ].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length === 0 ? new AbortController().signal : AbortSignal.any(signals);
  const why = () =>
    options.signal?.aborted === true
      ? 'aborted by the caller'
      : `the run's budget of ${Math.round((options.budgetMs ?? 0) / 1000)} s ran out`;
  const receiver = options.webhooks === false ? undefined : await WebhookReceiver.start(options.webhooks ?? {});
  const schema = options.schema ?? (await defaultSchema(adcpVersion));
  const report: RunReport = {
    agent: options.agentUrl,
    protocol: 'mcp',
    release: options.compliance.version,
    adcp_version: adcpVersion,
    compliance_source: options.compliance.source,
    started_at: new Date(started).toISOString(),
    duration_ms: 0,
    storyboards: [],
    counts: { storyboards: emptyCounts(), steps: emptyCounts() },
    notices: [],
    exit_code: 0,
  };
  if (schema === undefined) {
    report.notices.push(
      `no schemas of AdCP ${adcpVersion} at hand (ADCP_SCHEMAS_DIR, or adcp schemas sync --version ${options.compliance.version}): response_schema checks are not graded and requests are not checked before sending`,
    );
  }
  try {
    const probe = clientFor(options, adcpVersion, undefined);
    let capabilities: JsonObject | undefined;
    let tools: Set<string> | undefined;
    try {
      const found = await probe.client.discover({ signal, timeoutMs: options.stepTimeoutMs ?? 30_000 });
      report.protocol = found.protocol;
      // Neither get_adcp_capabilities nor the tool list could be had: no storyboard can be graded.
      if (found.capabilities === undefined && found.tools === undefined) {
        report.cut_short = `could not discover the agent at ${options.agentUrl} (get_adcp_capabilities: ${found.capabilitiesProblem ?? 'no answer'}; tool list: ${found.toolsProblem ?? 'no answer'}): is the agent running, and is this its MCP endpoint or A2A URL?`;
        return finish(report, started);
      }
      if (found.capabilities?.status === 'completed' && isJsonObject(found.capabilities.data))
        capabilities = found.capabilities.data;
      else
        report.notices.push(
          `get_adcp_capabilities gave no capabilities (${found.capabilitiesProblem ?? found.capabilities?.status ?? 'no answer'}): selection sees no protocols`,
        );
      if (found.tools !== undefined) tools = new Set(found.tools.map((t) => t.name));
      else
        report.notices.push(
          `the agent's tool list could not be read (${found.toolsProblem ?? 'unknown'}): steps are not gated on tools`,
        );
    } catch (error) {
      report.cut_short = `could not discover the agent at ${options.agentUrl}: ${(error as Error).message}`;
      return finish(report, started);
    } finally {
      await probe.client.close().catch(() => undefined);
    }
    let selected: Selected[];
    selected = selectStoryboards(
      options.compliance,
      capabilities,
      options.ids === undefined ? {} : { ids: options.ids },
    );
    options.onEvent?.({
      type: 'selected',
      storyboards: selected.map((s) => ({ id: s.storyboard.id, because: s.because })),
    });
    const agent: AgentFacts = { capabilities: capabilities ?? {}, tools, protocol: report.protocol };
    for (const [index, sel] of selected.entries()) {
      if (signal.aborted) {
        report.cut_short ??= why();
        report.storyboards.push(notRun(sel, `not run: the run was cut short (${report.cut_short})`));
        continue;
      }
      options.onEvent?.({
        type: 'storyboard_start',
        id: sel.storyboard.id,
        title: sel.storyboard.title,
        index,
        total: selected.length,
      });
      const outcome = await runOne(sel, {
        options,
        agent,
        receiver,
        schema,
        signal,
        adcpVersion,
        compliance: options.compliance,
      });
      if (outcome.cut_short !== undefined) {
        outcome.cut_short = why();
        report.cut_short ??= why();
      }
      report.storyboards.push(outcome);
      options.onEvent?.({ type: 'storyboard_end', outcome, index, total: selected.length });
    }
    const ungraded = report.storyboards.flatMap((s) => s.steps).filter((s) => s.fault === NO_CREDENTIALS).length;
    if (ungraded > 0)
      report.notices.push(
        `${ungraded} step${ungraded === 1 ? ' was' : 's were'} not graded: the agent asked for credentials (HTTP 401) and this run sent none; run again with the agent's token (--auth TOKEN, or ADCP_AUTH_TOKEN)`,
      );
    const unseeded = report.storyboards.filter((s) => s.detail?.startsWith(UNSEEDED) === true).map((s) => s.id);
    if (unseeded.length > 0)
      report.notices.push(
        `the fixtures of ${unseeded.join(', ')} were not seeded: the agent lists no comply_test_controller (a sandbox deployment's test controller), so their steps need the fixtures' ids to exist on the agent already`,
      );
  } finally {
    await receiver?.close();
  }
  return finish(report, started);
}

function finish(report: RunReport, started: number): RunReport {
  report.duration_ms = Date.now() - started;
  for (const storyboard of report.storyboards) {
    report.counts.storyboards[storyboard.verdict] += 1;
    for (const step of storyboard.steps) report.counts.steps[step.verdict] += 1;
  }
  const incomplete = report.cut_short !== undefined || report.counts.storyboards.harness_fault > 0;
  report.exit_code = report.counts.storyboards.failed > 0 ? 1 : incomplete ? 4 : 0;
  return report;
}

function notRun(sel: Selected, detail: string): StoryboardOutcome {
  return {
    id: sel.storyboard.id,
    title: sel.storyboard.title,
    file: sel.storyboard.file,
    kind: sel.storyboard.kind,
    verdict: 'harness_fault',
    detail,
    steps: [],
    duration_ms: 0,
    sessions: 0,
    selected_because: sel.because,
  };
}

/**
 * The release's schemas by path, plus `tool:<name>` for a tool's request schema (the manifest's
 * path) when a step names none.
 */
async function defaultSchema(
  release: string,
): Promise<((path: string, value: unknown) => ValidationResult) | undefined> {
  try {
    const { getValidator } = await import('../schemas/adcp-validator.js');
    const validator = getValidator(release);
    return (path, value) =>
      path.startsWith('tool:') ? validator.request(path.slice(5), value) : validator.schema(path, value);
  } catch {
    return undefined;
  }
}

interface AgentFacts {
  capabilities: JsonObject;
  tools: Set<string> | undefined;
  protocol: 'mcp' | 'a2a';
}

interface RunContext {
  options: RunStoryboardsOptions;
  agent: AgentFacts;
  receiver: WebhookReceiver | undefined;
  schema: ((path: string, value: unknown) => ValidationResult) | undefined;
  signal: AbortSignal;
  adcpVersion: string;
  compliance: ComplianceRelease;
}

function clientFor(
  options: RunStoryboardsOptions,
  adcpVersion: string,
  auth: string | null | undefined,
  extra?: Record<string, string>,
  /** Signs this connection's requests instead of `options.signing` (the signed_requests vectors). */
  signing?: RequestSigningOptions,
) {
  const record: HttpRecord = {};
  const base = options.fetch ?? globalThis.fetch;
  const recording: typeof fetch = async (input, init) => {
    let rewritten: HttpRecord['rewritten'];
    if (init?.method === 'POST' && typeof init.body === 'string' && init.body.length < 256 * 1024) {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      record.lastPost = { url, headers };
      let rpc: { method?: unknown; params?: unknown } | undefined;
      try {
        rpc = JSON.parse(init.body) as { method?: unknown; params?: unknown };
      } catch {
        // not JSON: nothing to show
      }
      if (
        rpc !== undefined &&
        rpc.method !== 'initialize' &&
        rpc.method !== 'notifications/initialized' &&
        rpc.method !== 'tools/list'
      )
        record.sent = rpc.params;
      // The signed_requests vectors: this call goes out with the vector's signature headers.
      if (record.rewrite !== undefined && typeof rpc?.method === 'string' && CALL_METHODS.has(rpc.method)) {
        const rewrite = record.rewrite;
        record.rewrite = undefined;
        rewritten = rewrite(url, headers, init.body);
        record.rewritten = rewritten;
        input = rewritten.url;
        init = { ...init, headers: rewritten.headers, body: rewritten.body };
      }
    }
    const response = await base(input, init);
    record.status = response.status;
    record.headers = Object.fromEntries(response.headers.entries());
    if (rewritten !== undefined) {
      rewritten.status = response.status;
      rewritten.answer = record.headers;
    }
    return response;
  };
  const headers = { ...options.headers, ...extra };
  if (auth === null) delete headers['authorization'];
  const client = new AdcpClient({
    url: options.agentUrl,
    protocol: options.protocol ?? 'auto',
    adcpVersion,
    retry: false,
    fetch: recording,
    headers,
    ...(auth === undefined
      ? options.auth === undefined
        ? {}
        : { auth: options.auth }
      : auth === null
        ? {}
        : { auth }),
    ...(options.mcpEra === undefined ? {} : { mcpEra: options.mcpEra }),
    ...((signing ?? options.signing) === undefined ? {} : { signing: signing ?? options.signing }),
    ...(options.credentialOrigins === undefined ? {} : { credentialOrigins: options.credentialOrigins }),
    ...(options.a2aWire === undefined ? {} : { a2aWire: options.a2aWire }),
  });
  return { client, record };
}

/** A storyboard's own gates (storyboard-schema.yaml): requires, required_any_of_tools, requires_capability, required_tools. */
function storyboardGate(doc: JsonObject, run: RunContext): { reason: SkipReason; detail: string } | undefined {
  const requires = doc['requires'];
  if (Array.isArray(requires)) {
    const tools = run.agent.tools;
    const unmet = requires.filter((r) => {
      if (r === 'real_wire') return false;
      if (r === 'controller') return tools !== undefined && !tools.has('comply_test_controller');
      if (r === 'seeded_state') return run.options.seededState !== true;
      if (r === 'webhook_receiver') return run.receiver === undefined;
      return true; // multi_agent (one agent per run) and unknown values
    });
    if (unmet.length > 0)
      return {
        reason: 'requirement_unmet',
        detail: unmet.map((r) => REQUIREMENT_HINTS[String(r)] ?? String(r)).join('; '),
      };
  }
  const families = doc['required_any_of_tools'];
  if (Array.isArray(families) && run.agent.tools !== undefined) {
    for (const family of families) {
      const names = isJsonObject(family) && Array.isArray(family['tools']) ? (family['tools'] as string[]) : [];
      if (!names.some((n) => run.agent.tools?.has(n))) {
        const rationale =
          isJsonObject(family) && typeof family['rationale'] === 'string' ? ` (${family['rationale']})` : '';
        return {
          reason: 'requirement_unmet',
          detail: `missing_required_tool_family: needs ${names.join(' or ')}${rationale}`,
        };
      }
    }
  }
  const needs = RUNNER_CONFIGURATION[String(doc['id'])];
  if (needs !== undefined) return { reason: 'requirement_unmet', detail: needs };
  const gate = capabilityGate(doc['requires_capability'] ?? PROSE_GATES[String(doc['id'])], run.agent.capabilities);
  if (gate !== undefined) return { reason: 'not_applicable', detail: gate };
  const required = doc['required_tools'];
  if (Array.isArray(required) && required.length > 0 && run.agent.tools !== undefined) {
    if (!required.some((t) => typeof t === 'string' && run.agent.tools?.has(t))) {
      return {
        reason: 'missing_tool',
        detail: `the agent lists none of the storyboard's required_tools [${required.join(', ')}] (it lists: ${[...run.agent.tools].sort().join(', ')})`,
      };
    }
  }
  return undefined;
}

/**
 * What an unmet `requires:` value needs, after its name (storyboard-schema.yaml: the detail names
 * it, e.g. "controller"), so the operator knows what would make the storyboard apply.
 */
const REQUIREMENT_HINTS: Record<string, string> = {
  controller:
    'controller: the agent does not list comply_test_controller (served by sandbox deployments only; adcp serve --test-controller)',
  seeded_state: 'seeded_state: the run was not told prerequisite state was seeded out of band (--seeded-state)',
  webhook_receiver: 'webhook_receiver: this run has no webhook receiver (--no-webhooks)',
};

/** The start of a storyboard's detail when its fixtures could not be seeded (no controller). */
const UNSEEDED = 'fixtures not seeded';

/** Whether a 401's challenge is AdCP's `Signature error="request_signature_required"`. */
function signatureRequired(headers: Record<string, string> | undefined): boolean {
  return signatureChallengeError(headers?.['www-authenticate']) === 'request_signature_required';
}

/** Whether the run sends any credential: a bearer token, a request signature or headers of the operator's. */
function sendsCredentials(options: RunStoryboardsOptions): boolean {
  return options.auth !== undefined || options.signing !== undefined || Object.keys(options.headers ?? {}).length > 0;
}

/**
 * Storyboards that grade `not_applicable` unless the runner is configured with something this
 * runner does not take, as their prerequisites say.
 */
const RUNNER_CONFIGURATION: Record<string, string> = {
  // webhook-receiver-envelope.yaml, prerequisites: "Runners without a receiver URL grade this
  // storyboard as not_applicable." It grades a buyer's receiver, not the agent under test.
  webhook_receiver_envelope:
    'a buyer webhook receiver URL and a test webhook signing key (webhook-receiver-envelope.yaml prerequisites: "Runners without a receiver URL grade this storyboard as not_applicable"); this runner grades the agent at <url>, not a buyer receiver',
};

/**
 * Storyboards whose applicability gate is written in prose instead of `requires_capability`
 * (docs/decisions/0221-storyboard-prose-gates.md): read as the capability gate they describe.
 */
const PROSE_GATES: Record<string, JsonObject> = {
  // signed-requests.yaml, prerequisites: "The agent MUST advertise `request_signing.supported: true`";
  // its first step: "If false or absent, this storyboard does not apply".
  signed_requests: { path: 'request_signing.supported', equals: true },
};

/** `requires_capability` (storyboard or phase): why it is not met, or undefined. */
export function capabilityGate(gate: unknown, capabilities: JsonObject): string | undefined {
  if (!isJsonObject(gate) || typeof gate['path'] !== 'string') return undefined;
  const path = gate['path'];
  const found = resolvePath(capabilities, path);
  const actual = found?.value;
  const shown = actual === undefined ? 'absent' : JSON.stringify(actual);
  if (Object.hasOwn(gate, 'equals') && !deepEqual(actual, gate['equals'])) {
    return `requires_capability: ${path} equals ${JSON.stringify(gate['equals'])}; the agent's get_adcp_capabilities has ${shown}`;
  }
  if (
    Object.hasOwn(gate, 'contains') &&
    !(Array.isArray(actual) && actual.some((v) => deepEqual(v, gate['contains'])))
  ) {
    return `requires_capability: ${path} contains ${JSON.stringify(gate['contains'])}; the agent's get_adcp_capabilities has ${shown}`;
  }
  if (gate['present'] === true && (actual === undefined || actual === null))
    return `requires_capability: ${path} present; the agent's get_adcp_capabilities has none`;
  if (gate['present'] === false && actual !== undefined)
    return `requires_capability: ${path} absent; the agent's get_adcp_capabilities has ${shown}`;
  return undefined;
}

function authLabel(auth: unknown): string | undefined {
  if (auth === undefined) return undefined;
  if (auth === 'none') return 'none';
  if (isJsonObject(auth))
    return [text(auth['type']), auth['from_test_kit'] === undefined ? text(auth['value_strategy']) : 'from_test_kit']
      .filter((x) => x !== '')
      .join(' ');
  return text(auth, 'unknown');
}

/** The credential a step's `auth:` override asks for: a header set, `null` for none, or why it cannot be built. */
function authOverride(
  auth: unknown,
  kit: unknown,
  agentUrl: string,
): { bearer?: string | null; headers?: Record<string, string>; problem?: string } {
  if (auth === 'none') return { bearer: null };
  if (!isJsonObject(auth)) return { problem: `unknown auth override ${JSON.stringify(auth)}` };
  const random = () => randomBytes(32).toString('base64url');
  const type = auth['type'];
  if (auth['value_strategy'] === 'random_invalid' && type === 'api_key') return { bearer: `invalid-${random()}` };
  if (auth['value_strategy'] === 'random_invalid' && type === 'basic') {
    return {
      bearer: null,
      headers: { authorization: `Basic ${Buffer.from(`${random()}:${random()}`).toString('base64')}` },
    };
  }
  // security.yaml, probe_invalid_oauth_token: a well-formed JWT header and payload, a random signature.
  if (auth['value_strategy'] === 'random_invalid_jwt') {
    const part = (value: JsonObject) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return { bearer: `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ sub: 'invalid', aud: agentUrl })}.${random()}` };
  }
  const from = auth['from_test_kit'];
  if (from !== undefined) {
    const path = from === true ? (type === 'basic' ? 'auth.basic' : 'auth.api_key') : text(from);
    const value = resolvePath(kit, path)?.value;
    if (type === 'basic' && isJsonObject(value)) {
      const pair =
        typeof value['credentials'] === 'string'
          ? value['credentials']
          : `${String(value['username'])}:${String(value['password'])}`;
      return { bearer: null, headers: { authorization: `Basic ${Buffer.from(pair).toString('base64')}` } };
    }
    if (typeof value === 'string' && value !== '') return { bearer: value };
    return { problem: `the test kit has no ${path}` };
  }
  return { problem: `unknown auth override ${JSON.stringify(auth)}` };
}

interface PhaseState {
  tripped?: string;
  branchSet?: string;
}

async function runOne(sel: Selected, run: RunContext): Promise<StoryboardOutcome> {
  const started = Date.now();
  const { storyboard } = sel;
  const outcome: StoryboardOutcome = {
    id: storyboard.id,
    title: storyboard.title,
    file: storyboard.file,
    kind: storyboard.kind,
    verdict: 'passed',
    steps: [],
    duration_ms: 0,
    sessions: 0,
    selected_because: sel.because,
  };
  const done = () => {
    outcome.duration_ms = Date.now() - started;
    return outcome;
  };
  if (sel.preGraded !== undefined) {
    outcome.verdict = sel.preGraded.verdict;
    outcome.detail = sel.preGraded.detail;
    outcome.skip = { reason: sel.preGraded.reason, detail: sel.preGraded.detail };
    return done();
  }
  const doc = storyboard.doc;
  const phases = Array.isArray(doc['phases']) ? doc['phases'].filter(isJsonObject) : [];
  if (phases.length === 0) {
    outcome.verdict = 'not_applicable';
    outcome.skip = { reason: 'no_phases', detail: `${storyboard.id} ${text(doc['version'])} has no phases` };
    return done();
  }
  const gate = storyboardGate(doc, run);
  if (gate !== undefined) {
    outcome.verdict = 'not_applicable';
    outcome.skip = gate;
    outcome.detail = gate.detail;
    return done();
  }
  const prerequisites = isJsonObject(doc['prerequisites']) ? doc['prerequisites'] : {};
  const kitPath = typeof prerequisites['test_kit'] === 'string' ? prerequisites['test_kit'] : undefined;
  const kit = kitPath === undefined ? {} : (run.compliance.testKits.get(kitPath) ?? {});
  const scope: SubstitutionScope = {
    context: {},
    priorSteps: new Map(),
    testKit: kit,
    generated: new Map(),
  };
  const runTag = randomBytes(4).toString('hex');
  const urlKey = (key: string) => `${storyboard.id}:${runTag}:${key}`;
  if (run.receiver !== undefined) {
    const receiver = run.receiver;
    scope.webhookBase = receiver.base;
    scope.webhookUrl = (key) => receiver.urlFor(urlKey(key));
  }
  if (isJsonObject(doc['context'])) Object.assign(scope.context, doc['context']);
  // A retry scenario's receiver refuses the first deliveries from the start: the webhook may
  // arrive before its expect_webhook_retry_keys_stable step runs.
  for (const step of phases.flatMap((p) => (Array.isArray(p['steps']) ? p['steps'].filter(isJsonObject) : []))) {
    const trigger = retryTrigger(step);
    if (run.receiver !== undefined && trigger !== undefined && typeof step['triggered_by'] === 'string')
      run.receiver.refuseFirst(urlKey(step['triggered_by']), trigger.count, trigger.status);
  }
  const clients = new Map<string, ReturnType<typeof clientFor>>();
  const connection = (
    key: string,
    auth: string | null | undefined,
    headers?: Record<string, string>,
    signing?: RequestSigningOptions,
  ) => {
    let entry = clients.get(key);
    if (entry === undefined) {
      entry = clientFor(run.options, run.adcpVersion, auth, headers, signing);
      clients.set(key, entry);
      outcome.sessions += 1;
    }
    return entry;
  };
  const passedSteps = new Map<string, boolean>();
  const builderCache = new Map<string, unknown>();
  const statusOf = new Map<string, string>();
  const tasks: RunnerTaskState = { replay: new MemoryReplayStore() };
  const producers = new Map<string, string>(); // context name -> phase/step that captures it
  const flags = new Map<string, string>();
  const urlKeysOf = new Map<string, string[]>();
  const phaseStates = new Map<string, PhaseState>();
  const priorPhases: string[] = [];
  for (const phase of phases) {
    for (const step of Array.isArray(phase['steps']) ? phase['steps'].filter(isJsonObject) : []) {
      for (const out of Array.isArray(step['context_outputs']) ? step['context_outputs'].filter(isJsonObject) : []) {
        const name = outputName(out);
        if (name === undefined) continue;
        if (typeof out['generate'] === 'string') scope.context[name] = crypto.randomUUID();
        else producers.set(name, `${String(phase['id'])}/${String(step['id'])}`);
      }
    }
  }
  try {
    if (prerequisites['controller_seeding'] === true && isJsonObject(doc['fixtures'])) {
      const seeded = await seedFixtures(doc['fixtures'], run, connection('default', undefined), storyboard, outcome);
      if (seeded === 'unsupported') return done();
      if (seeded === 'skipped')
        outcome.detail = `${UNSEEDED}: the storyboard seeds its fixtures (${fixtureIds(doc['fixtures']).join(', ')}) through comply_test_controller, which the agent does not list; its steps need them to exist on the agent already`;
    }
    for (const [phaseIndex, phase] of phases.entries()) {
      const phaseId = text(phase['id'], `phase${phaseIndex}`);
      const branch =
        isJsonObject(phase['branch_set']) && typeof phase['branch_set']['id'] === 'string'
          ? phase['branch_set']['id']
          : undefined;
      const state: PhaseState = branch === undefined ? {} : { branchSet: branch };
      phaseStates.set(phaseId, state);
      const optional = phase['optional'] === true;
      const steps = Array.isArray(phase['steps']) ? phase['steps'].filter(isJsonObject) : [];
      // Phase gates: requires_capability, skip_if, and the cascade from earlier phases.
      let phaseSkip: { verdict: Verdict; reason: SkipReason; detail: string; cause?: string } | undefined;
      const capability = capabilityGate(phase['requires_capability'], run.agent.capabilities);
      if (capability !== undefined)
        phaseSkip = { verdict: 'not_applicable', reason: 'not_applicable', detail: capability };
      else if (typeof phase['skip_if'] === 'string') {
        try {
          const roots = { context: scope.context, test_kit: kit, prior_step: priorStepRoots(passedSteps) };
          if (evaluateCondition(phase['skip_if'], roots)) {
            phaseSkip = {
              verdict: 'not_applicable',
              reason: 'not_applicable',
              detail: `skip_if: ${phase['skip_if']} is true`,
            };
          }
        } catch (error) {
          phaseSkip = {
            verdict: 'harness_fault',
            reason: 'not_applicable',
            detail: `this runner cannot evaluate skip_if ${JSON.stringify(phase['skip_if'])}: ${(error as Error).message}`,
          };
        }
      }
      const dependsOn = Array.isArray(phase['depends_on']) ? phase['depends_on'].map(String) : priorPhases;
      const tripped = dependsOn
        .filter((id) => !(branch !== undefined && phaseStates.get(id)?.branchSet === branch))
        .map((id) => phaseStates.get(id)?.tripped)
        .find((cause) => cause !== undefined);
      const statefulCount = steps.filter((s) => s['stateful'] === true).length;
      const vectorKind =
        storyboard.id === 'signed_requests' && (phaseId === 'positive_vectors' || phaseId === 'negative_vectors')
          ? phaseId === 'positive_vectors'
            ? 'positive'
            : 'negative'
          : undefined;
      /** The one step of a phase whose steps the runner generates, when it could not generate them. */
      const generatedFault = (fault: string): StepOutcome => ({
        phase_id: phaseId,
        step_id: '(generated)',
        title: text(phase['title'], phaseId),
        task: '',
        verdict: 'harness_fault',
        fault,
        validations: [],
        duration_ms: 0,
        source: { storyboard: storyboard.file, location: `phases[${phaseIndex}]` },
      });
      if (steps.length === 0 && phaseSkip === undefined && vectorKind !== undefined) {
        // signed-requests.yaml: one generated step per conformance vector (decision 0230).
        const fault = await vectorPhase(vectorKind, phaseId, phaseIndex, {
          run,
          kit,
          storyboard,
          connection: connection('default', undefined),
          signedConnection: (keyid, signing) => connection(`signed_requests:${keyid}`, null, undefined, signing),
          onStep: (step) => {
            outcome.steps.push(step);
            run.options.onEvent?.({ type: 'step', storyboard: storyboard.id, step });
          },
        });
        if (fault !== undefined) outcome.steps.push(generatedFault(fault));
      } else if (steps.length === 0 && phaseSkip === undefined) {
        // A phase whose steps the runner must generate (signed-requests: one per conformance vector).
        const fault = `phase ${phaseId} has no steps in the storyboard: its steps are generated by the runner${typeof phase['$comment'] === 'string' ? ` (${phase['$comment'].trim().split('\n')[0]}...)` : ''}, which this runner does not do yet; not graded`;
        outcome.steps.push(generatedFault(fault));
      }
      for (const [stepIndex, step] of steps.entries()) {
        const stepId = text(step['id'], `step${stepIndex}`);
        const taskRaw = typeof step['task'] === 'string' ? step['task'] : '';
        const base: StepOutcome = {
          phase_id: phaseId,
          step_id: stepId,
          title: typeof step['title'] === 'string' ? step['title'] : stepId,
          task: taskRaw,
          verdict: 'passed',
          validations: [],
          duration_ms: 0,
          source: {
            storyboard: storyboard.file,
            location: `phases[${phaseIndex}].steps[${stepIndex}]`,
            ...(typeof step['doc_ref'] === 'string' ? { doc_ref: step['doc_ref'] } : {}),
            ...(typeof step['expected'] === 'string' ? { expected_text: step['expected'].trim() } : {}),
          },
          ...(optional ? { optional: true } : {}),
        };
        const stateful = step['stateful'] === true;
        const record = (result: StepOutcome) => {
          outcome.steps.push(result);
          passedSteps.set(stepId, result.verdict === 'passed');
          if (result.response !== undefined) statusOf.set(stepId, result.response.status);
          run.options.onEvent?.({ type: 'step', storyboard: storyboard.id, step: result });
          if (!stateful) return;
          const trips =
            result.verdict === 'failed' ||
            (result.verdict === 'skipped' &&
              ['prerequisite_failed', 'unsatisfied_contract', 'peer_branch_taken'].includes(
                result.skip?.reason ?? '',
              )) ||
            ((result.verdict === 'not_applicable' || result.verdict === 'skipped') &&
              ['missing_tool', 'missing_test_controller', 'not_applicable'].includes(result.skip?.reason ?? '') &&
              statefulCount > 1);
          if (trips)
            state.tripped ??=
              result.skip?.reason === 'prerequisite_failed' && result.cause !== undefined
                ? result.cause
                : `${phaseId}/${stepId}`;
        };
        if (run.signal.aborted) {
          outcome.cut_short = 'cut short';
          return done();
        }
        if (phaseSkip !== undefined) {
          record({
            ...base,
            verdict: phaseSkip.verdict,
            skip: { reason: phaseSkip.reason, detail: phaseSkip.detail },
            ...(phaseSkip.verdict === 'harness_fault' ? { fault: phaseSkip.detail } : {}),
          });
          continue;
        }
        if (stateful && tripped !== undefined) {
          record({
            ...base,
            verdict: 'skipped',
            skip: { reason: 'prerequisite_failed', detail: `an earlier phase's stateful step ${tripped} did not pass` },
            cause: tripped,
          });
          continue;
        }
        // Within the phase, a stateful step that did not pass leaves the later ones without their state.
        if (stateful && state.tripped !== undefined) {
          record({
            ...base,
            verdict: 'skipped',
            skip: {
              reason: 'prerequisite_failed',
              detail: `the stateful step ${state.tripped} of this phase did not pass`,
            },
            cause: state.tripped,
          });
          continue;
        }
        const startedStep = Date.now();
        const result = await runStep(step, base, {
          run,
          scope,
          kit,
          flags,
          passedSteps,
          producers,
          urlKeysOf,
          urlKey,
          connection,
          storyboard,
          phaseId,
          builderCache,
          tasks,
          statusOf,
        });
        result.duration_ms = Date.now() - startedStep;
        if (result.verdict === 'passed') {
          const contributes =
            typeof step['contributes_to'] === 'string'
              ? step['contributes_to']
              : step['contributes'] === true
                ? branch
                : undefined;
          let allowed = true;
          if (typeof step['contributes_if'] === 'string') {
            try {
              allowed = evaluateCondition(step['contributes_if'], {
                context: scope.context,
                test_kit: kit,
                prior_step: priorStepRoots(passedSteps),
              });
            } catch {
              allowed = false;
            }
          }
          if (contributes !== undefined && allowed) flags.set(contributes, `${phaseId}.${stepId}`);
        }
        record(result);
      }
      priorPhases.push(phaseId);
    }
    // Branch sets (storyboard-schema.yaml, "Branch sets"): when a peer contributed the set's flag,
    // the other branches' failures are peer_branch_taken, not failures.
    for (const step of outcome.steps) {
      const branch = phaseStates.get(step.phase_id)?.branchSet;
      if (branch === undefined || step.verdict !== 'failed') continue;
      const by = flags.get(branch);
      if (by === undefined || by.startsWith(`${step.phase_id}.`)) continue;
      step.verdict = 'skipped';
      step.skip = { reason: 'peer_branch_taken', detail: `${branch} contributed by ${by} — ${step.phase_id} is moot` };
    }
  } catch (error) {
    outcome.steps.push({
      phase_id: '(runner)',
      step_id: '(runner)',
      title: 'runner error',
      task: '',
      verdict: 'harness_fault',
      fault: `the runner failed: ${(error as Error).stack ?? String(error)}`,
      validations: [],
      duration_ms: 0,
      source: { storyboard: storyboard.file, location: '' },
    });
  } finally {
    await Promise.all([...clients.values()].map((c) => c.client.close().catch(() => undefined)));
  }
  outcome.verdict = verdictOf(outcome);
  // A storyboard's steps build on each other: once the agent refused one for want of credentials
  // the run never had, what follows cannot be laid at the agent's door (decision 0244).
  if (outcome.steps.some((s) => s.fault === NO_CREDENTIALS)) {
    outcome.verdict = 'harness_fault';
    outcome.detail = NO_CREDENTIALS;
  }
  return done();
}

/**
 * The signed_requests vector phases (decision 0230): the vectors from `signingVectors` or the
 * release's test-vectors/request-signing/, each re-signed and sent over the storyboard's own
 * connection. Returns why the phase could not be graded at all (a harness fault), or undefined.
 */
async function vectorPhase(
  kind: 'positive' | 'negative',
  phaseId: string,
  phaseIndex: number,
  ctx: {
    run: RunContext;
    kit: unknown;
    storyboard: Storyboard;
    connection: ReturnType<typeof clientFor>;
    /** A connection of the storyboard whose every request `signing` signs, without the bearer token. */
    signedConnection: (keyid: string, signing: RequestSigningOptions) => ReturnType<typeof clientFor>;
    onStep: (step: StepOutcome) => void;
  },
): Promise<string | undefined> {
  const { run } = ctx;
  let vectors: SigningVectorSet | undefined;
  try {
    vectors = loadSigningVectors(run.compliance, run.options.signingVectors);
  } catch (error) {
    return `the request-signing vectors could not be read: ${(error as Error).message}`;
  }
  if (vectors === undefined) {
    return run.options.signingVectors === undefined
      ? `the compliance suite has no ${'test-vectors/request-signing/'} (keys.json, positive/, negative/): give the request-signing vectors folder (--signing-vectors DIR, runStoryboards({ signingVectors })); phase ${phaseId} is not graded`
      : `no keys.json in ${run.options.signingVectors}: not a request-signing vectors folder; phase ${phaseId} is not graded`;
  }
  const capability = resolvePath(run.agent.capabilities, 'request_signing')?.value;
  // The 2025 MCP era binds a session to its caller: a vector the agent should accept goes over a
  // session its own key opened (decision 0230). Sessionless wires take the storyboard's connection.
  const keys = vectors.keys;
  const sessionBound = ctx.connection.record.lastPost?.headers['mcp-session-id'] !== undefined;
  const connectionFor = (keyid: string) => {
    const jwk = keys.find((k) => k.kid === keyid);
    const d = jwk?.['_private_d_for_test_only'];
    if (jwk === undefined || typeof d !== 'string') return ctx.connection;
    return ctx.signedConnection(keyid, {
      keyid,
      alg: jwk.crv === 'Ed25519' ? 'ed25519' : 'es256',
      privateKey: { ...jwk, d },
    });
  };
  await runVectorPhase(
    kind,
    phaseId,
    {
      vectors,
      conn: ctx.connection,
      connectionFor: sessionBound ? connectionFor : undefined,
      fetch: run.options.fetch ?? globalThis.fetch,
      agent: {
        endpoint: run.options.agentUrl,
        capability: isJsonObject(capability) ? capability : {},
        tools: run.agent.tools,
      },
      kit: ctx.kit,
      runKeyid: run.options.signing?.keyid,
      storyboardFile: ctx.storyboard.file,
      phaseIndex,
      timeoutMs: run.options.stepTimeoutMs ?? 30_000,
      signal: run.signal,
    },
    ctx.onStep,
  );
  return undefined;
}

/** A YAML scalar as text (`fallback` for anything else). */
function text(value: unknown, fallback = ''): string {
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : fallback;
}

/** A context_outputs entry's name (`name`, or `key` as some storyboards write it). */
function outputName(out: JsonObject): string | undefined {
  const name = out['name'] ?? out['key'];
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function priorStepRoots(passed: Map<string, boolean>): Record<string, { passed: boolean }> {
  return Object.fromEntries([...passed].map(([id, ok]) => [id, { passed: ok }]));
}

function verdictOf(outcome: StoryboardOutcome): Verdict {
  const steps = outcome.steps;
  if (steps.some((s) => s.verdict === 'failed' && s.optional !== true)) return 'failed';
  if (steps.some((s) => s.verdict === 'harness_fault') || outcome.cut_short !== undefined) return 'harness_fault';
  if (steps.some((s) => s.verdict === 'passed')) return 'passed';
  if (steps.length > 0 && steps.every((s) => s.verdict === 'not_applicable' || s.verdict === 'skipped'))
    return 'not_applicable';
  return 'passed';
}

interface StepEnv {
  run: RunContext;
  scope: SubstitutionScope;
  kit: unknown;
  flags: Map<string, string>;
  passedSteps: Map<string, boolean>;
  producers: Map<string, string>;
  urlKeysOf: Map<string, string[]>;
  /** The receiver key of `{{runner.webhook_url:<key>}}` in this storyboard run. */
  urlKey: (key: string) => string;
  connection: (
    key: string,
    auth: string | null | undefined,
    headers?: Record<string, string>,
  ) => ReturnType<typeof clientFor>;
  storyboard: Storyboard;
  phaseId: string;
  /** The request builder's discoveries of this storyboard run. */
  builderCache: Map<string, unknown>;
  /** What runner tasks share within a storyboard run. */
  tasks: RunnerTaskState;
  /** The answer status of each step that got one, by step id. */
  statusOf: Map<string, string>;
}

interface RunnerTaskState {
  /** What fetch_brand_jwks found (the keys webhook signatures are verified with). */
  brandKeys?: BrandKeys;
  /** RFC 9728 metadata from protected_resource_metadata. */
  protectedResource?: unknown;
  /** The run-scoped (keyid, nonce) replay store of webhook signature checks (webhook-receiver-runner.yaml). */
  replay: MemoryReplayStore;
}

async function runStep(step: JsonObject, base: StepOutcome, env: StepEnv): Promise<StepOutcome> {
  const { run } = env;
  const tools = run.agent.tools;
  let task = base.task;
  if (task.startsWith('$test_kit.')) {
    const value = resolvePath(env.kit, task.slice('$test_kit.'.length))?.value;
    task = typeof value === 'string' ? value : typeof step['task_default'] === 'string' ? step['task_default'] : '';
    base.task = task;
    if (task === '')
      return {
        ...base,
        verdict: 'not_applicable',
        skip: {
          reason: 'not_applicable',
          detail: `${step['task'] as string} is not in the test kit and the step has no task_default`,
        },
      };
  }
  const requiresTool = step['requires_tool'];
  if (typeof requiresTool === 'string' && tools !== undefined && !tools.has(requiresTool)) {
    return {
      ...base,
      verdict: 'not_applicable',
      skip: { reason: 'missing_tool', detail: `requires_tool: ${requiresTool}, which the agent does not list` },
    };
  }
  const contract = step['requires_contract'];
  const offered =
    (contract === 'webhook_receiver_runner' && run.receiver !== undefined) ||
    (contract === 'rate_limit_trip_runner' && run.options.rateLimitTrip === true);
  if (typeof contract === 'string' && !offered) {
    return {
      ...base,
      verdict: 'not_applicable',
      skip: {
        reason: 'not_applicable',
        detail: `requires_contract: ${contract}, which this run does not offer${contract === 'rate_limit_trip_runner' ? ' (--rate-limit-trip offers it: up to max_attempts sequential writes)' : ''}`,
      },
    };
  }
  if (task === 'assert_contribution') {
    base.request = { tool: 'assert_contribution', args: { contributed: Object.fromEntries(env.flags) } };
    return gradeLocal(step, base, env, {});
  }
  if (task === 'expect_webhook') return expectWebhook(step, base, env);
  if (task === 'expect_webhook_signature_valid') return expectWebhookSignature(step, base, env);
  if (task === 'expect_webhook_retry_keys_stable') return expectRetryKeysStable(step, base, env);
  if (task === 'protected_resource_metadata' || task === 'oauth_auth_server_metadata')
    return oauthMetadata(task, step, base, env);
  if (task === 'fetch_brand_jwks' || task === 'assert_jwks_purpose') return brandJwks(task, base, env);
  if (task === 'expect_rate_limit_not_replayed') return rateLimitNotReplayed(step, base, env);
  if (RUNNER_TASKS.has(task)) {
    return {
      ...base,
      verdict: 'harness_fault',
      fault: `this runner does not implement the runner task ${task} yet: the step is not graded (the agent is not at fault)`,
    };
  }
  if (tools !== undefined && !tools.has(task)) {
    const reason: SkipReason = task === 'comply_test_controller' ? 'missing_test_controller' : 'missing_tool';
    return { ...base, verdict: 'not_applicable', skip: { reason, detail: `the agent does not list the tool ${task}` } };
  }
  // Substitution: a token whose producer did not pass is a prerequisite failure; any other is the step's own failure.
  const sample = isJsonObject(step['sample_request']) ? step['sample_request'] : {};
  const usedKeys: string[] = [];
  const scope: SubstitutionScope = {
    ...env.scope,
    ...(env.scope.webhookUrl === undefined
      ? {}
      : {
          webhookUrl: (key: string) => {
            usedKeys.push(key);
            return env.scope.webhookUrl?.(key) ?? '';
          },
        }),
  };
  let args: JsonObject;
  try {
    args = substitute(sample, scope) as JsonObject;
    for (const input of Array.isArray(step['context_inputs']) ? step['context_inputs'].filter(isJsonObject) : []) {
      const key = String(input['key']);
      if (Object.hasOwn(env.scope.context, key) && typeof input['inject_at'] === 'string') {
        const { setPath } = await import('./paths.js');
        setPath(args, input['inject_at'], env.scope.context[key]);
      }
    }
  } catch (error) {
    if (!(error instanceof UnresolvedSubstitution)) throw error;
    const name = /^\$context\.(.+)$/.exec(error.token)?.[1];
    const producer = name === undefined ? undefined : env.producers.get(name);
    if (producer !== undefined) {
      return {
        ...base,
        verdict: 'skipped',
        skip: {
          reason: 'prerequisite_failed',
          detail: `${error.token} is captured by ${producer}, which did not pass`,
        },
        cause: producer,
      };
    }
    if (error.token.includes('runner.webhook')) {
      return {
        ...base,
        verdict: 'not_applicable',
        skip: {
          reason: 'requirement_unmet',
          detail: `webhook_receiver: ${error.token} needs the runner's webhook receiver, which this run has turned off`,
        },
      };
    }
    return {
      ...base,
      verdict: 'failed',
      validations: [
        {
          check: 'unresolved_substitution',
          description: `the request refers to ${error.token}, which nothing resolved`,
          verdict: 'failed',
          severity: 'required',
          json_pointer: null,
          expected: error.token,
          actual: null,
        },
      ],
    };
  }
  env.urlKeysOf.set(base.step_id, usedKeys);
  const expanded = expandAssetDirectives(
    args,
    env.scope.context['formats'],
    isJsonObject(env.kit) && isJsonObject(env.kit['assets']) ? env.kit : run.compliance.testKits.get(DEFAULT_BRAND_KIT),
  );
  if (expanded.built.length > 0) base.built = [...(base.built ?? []), ...expanded.built];
  if (expanded.problem !== undefined) {
    return {
      ...base,
      verdict: 'failed',
      validations: [
        {
          check: 'unresolved_substitution',
          description: 'every required asset slot of the format is filled before the request is sent',
          verdict: 'failed',
          severity: 'required',
          json_pointer: null,
          expected: '$build_assets_from_format',
          actual: null,
          note: expanded.problem,
        },
      ],
    };
  }
  // The connection: the storyboard's own, or one with the step's auth override.
  let conn = env.connection('default', undefined);
  if (step['auth'] !== undefined) {
    const override = authOverride(step['auth'], env.kit, run.options.agentUrl);
    if (override.problem !== undefined)
      return { ...base, verdict: 'harness_fault', fault: `auth override: ${override.problem}` };
    conn = env.connection(`auth:${JSON.stringify(step['auth'])}`, override.bearer, override.headers);
  }
  const timeoutMs =
    typeof step['timeout_seconds'] === 'number'
      ? step['timeout_seconds'] * 1000
      : (run.options.stepTimeoutMs ?? 30_000);
  // storyboard-schema.yaml, negative_path: a request the storyboard means to be well formed is
  // checked against its schema before it goes out. One that leaves required fields to a per-task
  // request builder gets them from ours (decision 0225) when it has one for the task; one that is
  // still not valid is this runner's problem, not the agent's (decision 0222).
  let checked = requestProblem(step, task, args, env);
  // The schemas report one problem at a time (decision 0121): build, check again, a few rounds.
  for (let round = 0; checked !== undefined && hasRequestBuilder(task) && round < 8; round += 1) {
    const made = await buildRequest(task, args, checked.issues, {
      storyboard: env.storyboard.doc,
      defaultKit: run.compliance.testKits.get(DEFAULT_BRAND_KIT),
      client: conn.client,
      timeoutMs,
      signal: run.signal,
      cache: env.builderCache,
    });
    if (made.built.length > 0) base.built = [...(base.built ?? []), ...made.built];
    if (made.problem !== undefined) {
      base.request = { tool: task, args: made.request };
      return {
        ...base,
        verdict: 'harness_fault',
        fault: `${checked.message}; the request builder could not complete it: ${made.problem}; not sent`,
      };
    }
    if (made.built.length === 0) break;
    args = made.request;
    checked = requestProblem(step, task, args, env);
  }
  if (checked !== undefined) {
    base.request = { tool: task, args };
    return {
      ...base,
      verdict: 'harness_fault',
      fault: `${checked.message}: the storyboard leaves these fields to a per-task request builder, which this runner ${hasRequestBuilder(task) ? `has for ${task} but which could not supply them` : `does not have for ${task}`}; not sent`,
    };
  }
  const label = authLabel(step['auth']);
  base.request = { tool: task, args, ...(label === undefined ? {} : { auth: label }) };
  conn.record.sent = undefined;
  conn.record.status = undefined;
  conn.record.headers = undefined;
  let result: TaskResult | undefined;
  try {
    result = await conn.client.call(task, args, {
      retry: false,
      timeoutMs,
      signal: run.signal,
      ...(step['omit_idempotency_key'] === true ? { omitIdempotencyKey: true } : {}),
    });
  } catch (error) {
    if (run.signal.aborted)
      return { ...base, verdict: 'harness_fault', fault: 'the run was cut short during this step' };
    if (!isAdcpWireError(error))
      return { ...base, verdict: 'harness_fault', fault: `the client refused the call: ${(error as Error).message}` };
    const http = error.code === 'http_status' ? (error.status ?? conn.record.status) : undefined;
    base.response = {
      status: http === undefined ? `wire error: ${error.code}` : 'http_error',
      ...(http === undefined ? {} : { http_status: http }),
    };
    if (error.code === 'network' || error.code === 'unsafe_url' || error.code === 'store') {
      return { ...base, verdict: 'harness_fault', fault: `environment: ${error.message}` };
    }
    if (http === 401 && step['auth'] === undefined && !sendsCredentials(run.options))
      return { ...base, verdict: 'harness_fault', fault: NO_CREDENTIALS };
    if (http === 401 && run.options.signing === undefined && signatureRequired(conn.record.headers))
      return { ...base, verdict: 'harness_fault', fault: NO_SIGNATURE };
    if (step['expect_error'] === true && http !== undefined) {
      return gradeLocal(step, base, env, {
        status: 'http_error',
        body: undefined,
        httpStatus: http,
        httpHeaders: conn.record.headers ?? {},
        tool: task,
        request: args,
      });
    }
    return { ...base, verdict: 'failed', error: `${error.code}: ${error.message}` };
  }
  if (conn.record.sent !== undefined && isJsonObject(conn.record.sent))
    base.request.args = sentArgs(conn.record.sent, args);
  const body = result.data ?? ('text' in result && result.text !== undefined ? { text: result.text } : undefined);
  const errorCode = errorCodeOf(task, result, body);
  base.response = {
    status: result.status,
    body,
    ...(conn.record.status === undefined ? {} : { http_status: conn.record.status }),
    ...(errorCode === undefined ? {} : { error_code: errorCode }),
  };
  env.scope.priorSteps.set(base.step_id, body);
  if (conn.record.status === 401 && step['auth'] === undefined && !sendsCredentials(run.options))
    return { ...base, verdict: 'harness_fault', fault: NO_CREDENTIALS };
  // comply-test-controller.md, "Capability discovery": "the runner ... treats UNKNOWN_SCENARIO
  // responses as coverage gaps (not failures)".
  if (task === 'comply_test_controller' && errorCode === 'UNKNOWN_SCENARIO' && step['expect_error'] !== true) {
    return {
      ...base,
      verdict: 'not_applicable',
      skip: {
        reason: 'not_applicable',
        detail: `coverage gap: the agent's comply_test_controller does not implement ${text(args['scenario'], 'this scenario')} (UNKNOWN_SCENARIO; comply-test-controller.md: "treats UNKNOWN_SCENARIO responses as coverage gaps (not failures)")`,
      },
    };
  }
  const graded = gradeLocal(step, base, env, {
    status: result.status,
    body,
    ...(errorCode === undefined ? {} : { errorCode }),
    ...(conn.record.status === undefined ? {} : { httpStatus: conn.record.status }),
    httpHeaders: conn.record.headers ?? {},
    tool: task,
    request: args,
    raw: result.raw,
  });
  if (graded.verdict !== 'passed') return graded;
  // expect_error (storyboard-schema.yaml): "the runner expects the agent to return an error response".
  const isError = result.status === 'failed' || result.status === 'rejected' || errorCode !== undefined;
  if (step['expect_error'] === true && !isError) {
    return {
      ...graded,
      verdict: 'failed',
      error: `the agent answered ${result.status} where the step expects an error`,
    };
  }
  return capture(step, graded, env, result, conn.client, timeoutMs);
}

/**
 * The AdCP error code of an answer, wherever the transport put it (transport-errors.md, client
 * detection order): the result's adcp_error, `errors[0].code` of the payload, `adcp_error.code`;
 * for comply_test_controller, its own `{ success: false, error }` shape (comply-test-controller.md).
 */
function errorCodeOf(task: string, result: TaskResult, body: unknown): string | undefined {
  if ('error' in result && result.error !== undefined) return result.error.code;
  if (!isJsonObject(body)) return undefined;
  const errors = body['errors'];
  if (Array.isArray(errors) && isJsonObject(errors[0]) && typeof errors[0]['code'] === 'string')
    return errors[0]['code'];
  if (isJsonObject(body['adcp_error']) && typeof body['adcp_error']['code'] === 'string')
    return body['adcp_error']['code'];
  if (task === 'comply_test_controller' && body['success'] === false && typeof body['error'] === 'string')
    return body['error'];
  return undefined;
}

const ENVELOPE_FIELDS = new Set(['/idempotency_key', '/adcp_version', '/adcp_major_version']);

function requestProblem(
  step: JsonObject,
  task: string,
  args: JsonObject,
  env: StepEnv,
): { message: string; issues: { pointer: string; message: string }[] } | undefined {
  const schema = env.run.schema;
  if (schema === undefined || step['sample_request_skip_schema'] === true) return undefined;
  if (step['expect_error'] === true && step['negative_path'] !== 'payload_well_formed') return undefined;
  let named: unknown = step['schema_ref'];
  if (typeof named === 'string' && named.startsWith('$test_kit.'))
    named = resolvePath(env.kit, named.slice('$test_kit.'.length))?.value;
  const ref = typeof named === 'string' && !named.startsWith('$') ? named : `tool:${task}`;
  const checked = schema(ref, args);
  if (checked.ok) return undefined;
  const issues = checked.issues.filter((i) => !ENVELOPE_FIELDS.has(i.pointer));
  if (issues.length === 0) return undefined;
  return {
    message: `the request built from the storyboard's sample_request does not match ${ref} (${issues
      .slice(0, 4)
      .map((i) => `${i.pointer || '/'}: ${i.message}`)
      .join('; ')})`,
    issues,
  };
}

/** The arguments as they went out (MCP `params.arguments`; A2A data part), falling back to ours. */
function sentArgs(params: JsonObject, ours: JsonObject): JsonObject {
  if (isJsonObject(params['arguments'])) return params['arguments'];
  const message = isJsonObject(params['message']) ? params['message'] : undefined;
  const parts = Array.isArray(message?.['parts']) ? message['parts'] : [];
  for (const part of parts) {
    if (isJsonObject(part) && isJsonObject(part['data'])) {
      const data = part['data'];
      if (isJsonObject(data['parameters'])) return data['parameters'];
      if (isJsonObject(data['arguments'])) return data['arguments'];
      return data;
    }
  }
  return ours;
}

function gradeLocal(step: JsonObject, base: StepOutcome, env: StepEnv, seen: Partial<Observation>): StepOutcome {
  const observation: Observation = {
    tool: seen.tool ?? base.task,
    status: seen.status ?? 'completed',
    body: seen.body,
    request: seen.request ?? {},
    context: env.scope.context,
    flags: env.flags,
    protocol: env.run.agent.protocol,
    agentUrl: env.run.options.agentUrl,
    ...(env.run.schema === undefined ? {} : { schema: env.run.schema }),
    ...(typeof step['response_schema_ref'] === 'string' ? { responseSchemaRef: step['response_schema_ref'] } : {}),
    ...(seen.errorCode === undefined ? {} : { errorCode: seen.errorCode }),
  };
  if (seen.httpStatus !== undefined) observation.httpStatus = seen.httpStatus;
  if (seen.httpHeaders !== undefined) observation.httpHeaders = seen.httpHeaders;
  if (seen.raw !== undefined) observation.raw = seen.raw;
  // A pending answer is checked against its own async schema, not the final response schema.
  if (
    observation.status === 'submitted' ||
    observation.status === 'working' ||
    observation.status === 'input-required'
  ) {
    const validator = env.run.schema;
    if (validator !== undefined && observation.responseSchemaRef !== undefined) {
      const asyncRef = observation.responseSchemaRef.replace(
        /-response\.json$/,
        `-async-response-${observation.status}.json`,
      );
      observation.responseSchemaRef = asyncRef;
    }
  }
  const validations = (Array.isArray(step['validations']) ? step['validations'].filter(isJsonObject) : []).map((v) => {
    // Expected values may be placeholders too (`value: "$context.media_buy_id"`).
    let spec = v;
    try {
      spec = substitute(v, env.scope) as JsonObject;
    } catch (error) {
      if (!(error instanceof UnresolvedSubstitution)) throw error;
      return {
        check: String(v['check']),
        description: String(v['description'] ?? v['check']),
        verdict: 'failed' as const,
        severity: 'required' as const,
        json_pointer: null,
        expected: error.token,
        actual: null,
        note: `unresolved_substitution: the expected value refers to ${error.token}, which nothing captured`,
      };
    }
    return grade(spec, observation);
  });
  const failed = validations.some((v) => v.verdict === 'failed' && v.severity === 'required');
  return { ...base, validations, verdict: failed ? 'failed' : 'passed' };
}

/** `context_outputs` (after the step passed): a path that does not resolve fails the step. */
async function capture(
  step: JsonObject,
  graded: StepOutcome,
  env: StepEnv,
  result: TaskResult,
  client: AdcpClient,
  timeoutMs: number,
): Promise<StepOutcome> {
  const outputs = Array.isArray(step['context_outputs']) ? step['context_outputs'].filter(isJsonObject) : [];
  let completion: unknown;
  for (const out of outputs) {
    const name = outputName(out);
    if (name === undefined || typeof out['path'] !== 'string') continue;
    let root: unknown = graded.response?.body;
    let path = out['path'];
    if (path.startsWith('task_completion.')) {
      path = path.slice('task_completion.'.length);
      if (completion === undefined) {
        try {
          const final =
            result.status === 'submitted' || result.status === 'working'
              ? await client.waitFor(result, {
                  timeoutMs,
                  signal: env.run.signal,
                  pollIntervalMs: 500,
                  maxPollIntervalMs: 2000,
                })
              : result;
          completion = final.status === 'completed' ? (final.data ?? null) : null;
        } catch {
          completion = null;
        }
      }
      root = completion;
    }
    const found = path === '' ? { value: root, pointer: '' } : resolvePath(root, path);
    if (found === undefined || found.value === null || found.value === undefined || found.value === '') {
      return {
        ...graded,
        verdict: 'failed',
        validations: [
          ...graded.validations,
          {
            check: 'capture_path_not_resolvable',
            description: `context_outputs ${name}: ${out['path']} resolves to no usable value`,
            verdict: 'failed',
            severity: 'required',
            path: out['path'],
            json_pointer: pointerOf(path),
            expected: out['path'],
            actual: found?.value ?? null,
          },
        ],
      };
    }
    env.scope.context[name] = found.value;
  }
  return graded;
}

interface Located {
  receiver: WebhookReceiver;
  trigger: string;
  captureIds: string[];
  wanted: JsonObject;
  matches: (d: Delivery) => boolean;
  timeoutMs: number;
  all: Delivery[];
}

/**
 * The deliveries an expect_webhook* step grades: those to its trigger's receiver URL(s) matching
 * `filter.body`, waited for until `enough` holds (default: one matches) or the step's timeout.
 * Returns the step's verdict instead when it cannot be graded (no receiver, trigger not passed).
 */
async function locateWebhooks(
  step: JsonObject,
  base: StepOutcome,
  env: StepEnv,
  defaultTimeoutS: number,
  enough?: (matching: Delivery[]) => boolean,
): Promise<Located | StepOutcome> {
  const receiver = env.run.receiver;
  if (receiver === undefined) {
    return {
      ...base,
      verdict: 'not_applicable',
      skip: { reason: 'requirement_unmet', detail: 'webhook_receiver: this run has no webhook receiver' },
    };
  }
  const trigger = typeof step['triggered_by'] === 'string' ? step['triggered_by'] : '';
  const keys = env.urlKeysOf.get(trigger);
  if (keys === undefined || env.passedSteps.get(trigger) !== true) {
    return {
      ...base,
      verdict: 'skipped',
      skip: { reason: 'prerequisite_failed', detail: `triggered_by: ${trigger} did not pass` },
      cause: `${env.phaseId}/${trigger}`,
    };
  }
  if (keys.length === 0)
    return { ...base, verdict: 'harness_fault', fault: `triggered_by: ${trigger} sent no {{runner.webhook_url:...}}` };
  // webhook-emission.yaml: the trigger "either returns an immediate terminal status (no webhook
  // needed) or an interim status"; "Synchronous completions do not emit task webhooks".
  const answered = env.statusOf.get(trigger);
  if (answered === 'completed' || answered === 'failed' || answered === 'rejected' || answered === 'canceled')
    return {
      ...base,
      verdict: 'not_applicable',
      skip: {
        reason: 'not_applicable',
        detail: `${trigger} answered ${answered} at once: a synchronous completion owes no task webhook (webhook-emission.yaml, "Synchronous completions do not emit task webhooks")`,
      },
    };
  const captureIds = keys.map((k) => receiver.captureOf(env.urlKey(k)) ?? '').filter((c) => c !== '');
  let filter: unknown;
  try {
    filter = substitute(isJsonObject(step['filter']) ? step['filter'] : {}, env.scope);
  } catch (error) {
    return { ...base, verdict: 'failed', error: (error as Error).message };
  }
  const wanted = isJsonObject(filter) && isJsonObject(filter['body']) ? filter['body'] : {};
  const matches = (d: Delivery) =>
    Object.entries(wanted).every(([path, value]) => deepEqual(resolvePath(d.body, path)?.value, value));
  const timeoutMs = (typeof step['timeout_seconds'] === 'number' ? step['timeout_seconds'] : defaultTimeoutS) * 1000;
  const accept = enough ?? ((matching: Delivery[]) => matching.length > 0);
  let all: Delivery[] = [];
  await Promise.race(
    captureIds.map(async (capture) => {
      const got = await receiver.waitFor(capture, (ds) => accept(ds.filter(matches)), timeoutMs, env.run.signal);
      all = all.concat(got);
    }),
  );
  base.request = { tool: base.task, args: { triggered_by: trigger, filter: wanted } };
  return { receiver, trigger, captureIds, wanted, matches, timeoutMs, all };
}

function noWebhook(base: StepOutcome, found: Located): StepOutcome {
  base.response = { status: 'no_webhook_received', body: found.all.slice(0, 5).map((d) => d.body) };
  return {
    ...base,
    verdict: 'failed',
    validations: [
      failure(
        'no_webhook_received',
        `a webhook for ${found.trigger} matching the filter within ${found.timeoutMs / 1000} s`,
        found.wanted,
        found.all.length === 0 ? '(nothing arrived)' : `${found.all.length} delivery(ies), none matching`,
      ),
    ],
  };
}

async function expectWebhook(step: JsonObject, base: StepOutcome, env: StepEnv): Promise<StepOutcome> {
  const found = await locateWebhooks(step, base, env, 30);
  if (!('receiver' in found)) return found;
  const { receiver, captureIds, matches, timeoutMs, all } = found;
  const hit = all.find(matches);
  if (hit === undefined) return noWebhook(base, found);
  base.response = { status: 'delivered', body: hit.body };
  const validations: ValidationOutcome[] = [];
  const body = isJsonObject(hit.body) ? hit.body : {};
  if (step['expect_idempotency_key'] !== false) {
    const key = body['idempotency_key'];
    validations.push({
      check: 'idempotency_key',
      description: 'the webhook carries an idempotency_key matching ^[A-Za-z0-9_.:-]{16,255}$ (webhooks.md)',
      verdict: typeof key === 'string' && IDEMPOTENCY_KEY.test(key) ? 'passed' : 'failed',
      severity: 'required',
      json_pointer: '/idempotency_key',
      expected: IDEMPOTENCY_KEY.source,
      actual: key ?? '(absent)',
    });
  }
  if (typeof step['webhook_payload_schema_ref'] === 'string' && env.run.schema !== undefined) {
    const checked = env.run.schema(step['webhook_payload_schema_ref'], hit.body);
    validations.push({
      check: 'response_schema',
      description: `the payload matches ${step['webhook_payload_schema_ref']}`,
      verdict: checked.ok ? 'passed' : 'failed',
      severity: 'required',
      json_pointer: checked.ok ? null : (checked.issues[0]?.pointer ?? ''),
      expected: step['webhook_payload_schema_ref'],
      actual: checked.ok ? null : checked.issues.map((i) => `${i.pointer || '/'}: ${i.message}`),
    });
  }
  const most = step['expect_max_deliveries_per_logical_event'];
  if (typeof most === 'number') {
    const settle = Math.min(timeoutMs, 3000);
    await new Promise((resolve) => setTimeout(resolve, settle));
    // A logical event is one status of the operation (decision 0226): working then completed
    // are two events, one idempotency_key each; a replay that re-executes sends a status again
    // under a fresh key.
    const keysByStatus = new Map<string, Set<string>>();
    for (const d of captureIds.flatMap((c) => receiver.deliveriesTo(c)).filter(matches)) {
      const b = isJsonObject(d.body) ? d.body : {};
      const status = text(b['status'], '(none)');
      const keys = keysByStatus.get(status) ?? new Set<string>();
      keys.add(text(b['idempotency_key'], '(absent)'));
      keysByStatus.set(status, keys);
    }
    const worst = Math.max(0, ...[...keysByStatus.values()].map((k) => k.size));
    validations.push({
      check: 'expect_max_deliveries_per_logical_event',
      description: `at most ${most} logical webhook event(s) per status of the operation (distinct idempotency_key values)`,
      verdict: worst <= most ? 'passed' : 'failed',
      severity: 'required',
      json_pointer: null,
      expected: most,
      actual: Object.fromEntries([...keysByStatus].map(([status, keys]) => [status, keys.size])),
      ...(worst <= most
        ? {}
        : { note: 'duplicate_webhook_on_replay: a status was sent again under a new idempotency_key' }),
    });
  }
  const graded = gradeLocal(step, { ...base, validations: [] }, env, {
    status: 'completed',
    body: hit.body,
    tool: 'expect_webhook',
  });
  const all2 = [...validations, ...graded.validations];
  return {
    ...base,
    validations: all2,
    verdict: all2.some((v) => v.verdict === 'failed' && v.severity === 'required') ? 'failed' : 'passed',
  };
}

/** `retry_trigger` of an expect_webhook_retry_keys_stable step, when within the test kit's bounds. */
function retryTrigger(step: JsonObject): { count: number; status: number } | undefined {
  if (step['task'] !== 'expect_webhook_retry_keys_stable') return undefined;
  const spec = isJsonObject(step['retry_trigger']) ? step['retry_trigger'] : {};
  const count = typeof spec['count'] === 'number' ? spec['count'] : 3;
  const status = typeof spec['http_status'] === 'number' ? spec['http_status'] : 503;
  // webhook-receiver-runner.yaml, retry_replay_contract: 1 <= count <= 10, a retryable status.
  if (!Number.isInteger(count) || count < 1 || count > 10 || ![429, 500, 502, 503, 504].includes(status))
    return undefined;
  return { count, status };
}

/** The fetch rules of the runner tasks (decision 0227). */
function fetchRules(env: StepEnv, step: JsonObject): FetchRules {
  const run = env.run;
  return {
    agentUrl: run.options.agentUrl,
    allowHttp: run.options.allowHttp === true,
    timeoutMs:
      typeof step['timeout_seconds'] === 'number'
        ? step['timeout_seconds'] * 1000
        : (run.options.stepTimeoutMs ?? 30_000),
    signal: run.signal,
    fetch: run.options.fetch ?? globalThis.fetch,
  };
}

/** Whether a trigger step registered its webhook in the deprecated HMAC mode (`authentication` given). */
function hmacMode(env: StepEnv, trigger: string): boolean {
  for (const phase of Array.isArray(env.storyboard.doc['phases']) ? env.storyboard.doc['phases'] : []) {
    if (!isJsonObject(phase) || !Array.isArray(phase['steps'])) continue;
    for (const step of phase['steps']) {
      if (!isJsonObject(step) || step['id'] !== trigger || !isJsonObject(step['sample_request'])) continue;
      const config = step['sample_request']['push_notification_config'];
      return isJsonObject(config) && config['authentication'] !== undefined;
    }
  }
  return false;
}

/** The agent's published keys for this storyboard run (fetched once, as fetch_brand_jwks does). */
async function brandKeysOf(env: StepEnv, step: JsonObject): Promise<BrandKeys> {
  env.tasks.brandKeys ??= await fetchBrandJwks(
    env.run.agent.capabilities,
    env.run.options.brandJsonUrl,
    fetchRules(env, step),
  );
  return env.tasks.brandKeys;
}

/** A refusal by the runner's own fetch rules is the environment's (a local setup), not the agent's. */
function refusedByRules(detail: string | undefined): boolean {
  return detail?.startsWith('refused to fetch') === true;
}

/** Verifies one delivery's RFC 9421 webhook signature with the agent's keys and the run's replay store. */
async function verifyDelivery(delivery: Delivery, keys: BrandKeys, env: StepEnv): Promise<ValidationOutcome> {
  const description =
    "the delivery passes the RFC 9421 webhook verifier checklist (security.md) with the agent's published keys";
  if (keys.jwks === undefined)
    return {
      ...failure('signature_key_unknown', description, "a key from the agent's brand.json JWKS", '(no published JWKS)'),
      note: [`the agent's keys could not be had: ${keys.failed?.code ?? ''} ${keys.failed?.detail ?? ''}`.trim()]
        .concat(keys.failed?.hint ?? [])
        .join('; '),
    };
  const verified = await verifyWebhookSignature(
    { method: 'POST', url: delivery.url, headers: delivery.headers, body: delivery.raw },
    { jwks: { keys: keys.jwks.keys as never }, replay: env.tasks.replay },
  );
  if (verified.ok) return passing('signature_valid', description, 'adcp/webhook-signing/v1', `keyid ${verified.keyid}`);
  const code = verified.reason.replace(/^webhook_/, '');
  return {
    ...failure(code, description, 'a valid signature', verified.reason),
    ...(verified.detail === undefined ? {} : { note: verified.detail }),
  };
}

/** expect_webhook_signature_valid (storyboard-schema.yaml): the matching delivery's 9421 signature verifies. */
async function expectWebhookSignature(step: JsonObject, base: StepOutcome, env: StepEnv): Promise<StepOutcome> {
  const found = await locateWebhooks(step, base, env, 30);
  if (!('receiver' in found)) return found;
  const hit = found.all.find(found.matches);
  if (hit === undefined) return noWebhook(base, found);
  base.response = { status: 'delivered', body: hit.body };
  const keys = await brandKeysOf(env, step);
  if (keys.jwks === undefined && refusedByRules(keys.failed?.detail))
    return { ...base, verdict: 'harness_fault', fault: `the agent's keys: ${keys.failed?.detail ?? ''}` };
  const checked = await verifyDelivery(hit, keys, env);
  return { ...base, validations: [checked], verdict: checked.verdict === 'failed' ? 'failed' : 'passed' };
}

/**
 * expect_webhook_retry_keys_stable (storyboard-schema.yaml): the receiver refused the first
 * `retry_trigger.count` deliveries; every delivery of the event carries the same
 * idempotency_key, at least `expect_min_deliveries` arrived, and in 9421 mode each one's
 * signature verifies with the run's shared replay store (a reused nonce is signature_replayed).
 */
async function expectRetryKeysStable(step: JsonObject, base: StepOutcome, env: StepEnv): Promise<StepOutcome> {
  const trigger = retryTrigger(step);
  if (trigger === undefined)
    return {
      ...base,
      verdict: 'harness_fault',
      fault:
        'retry_trigger is outside webhook-receiver-runner.yaml retry_replay_contract (count 1-10, status 429/500/502/503/504): the storyboard is invalid',
    };
  const found = await locateWebhooks(step, base, env, 90, (matching) => matching.length > trigger.count);
  if (!('receiver' in found)) return found;
  const deliveries = found.all.filter(found.matches).sort((a, b) => a.receivedAt - b.receivedAt);
  if (deliveries.length === 0) return noWebhook(base, found);
  base.response = {
    status: 'delivered',
    body: deliveries.map((d) => ({
      answered: d.answered,
      idempotency_key: isJsonObject(d.body) ? d.body['idempotency_key'] : undefined,
    })),
  };
  const least = typeof step['expect_min_deliveries'] === 'number' ? step['expect_min_deliveries'] : 2;
  const validations: ValidationOutcome[] = [];
  const retried = `at least ${least} deliveries of the event within ${found.timeoutMs / 1000} s (the receiver answered ${trigger.status} to the first ${trigger.count})`;
  validations.push(
    deliveries.length >= least
      ? passing('expect_min_deliveries', retried, least, deliveries.length)
      : failure('insufficient_retries', retried, least, deliveries.length),
  );
  const keys = deliveries.map((d) => (isJsonObject(d.body) ? d.body['idempotency_key'] : undefined));
  const first = keys[0];
  const stable = 'every delivery carries the byte-identical idempotency_key of the first';
  if (typeof first !== 'string' || !IDEMPOTENCY_KEY.test(first))
    validations.push(failure('idempotency_key_format_changed', stable, IDEMPOTENCY_KEY.source, first ?? '(absent)'));
  else if (keys.every((k) => k === first)) validations.push(passing('idempotency_key_stable', stable, first, keys));
  else
    validations.push(
      failure(
        keys.some((k) => typeof k !== 'string' || !IDEMPOTENCY_KEY.test(k))
          ? 'idempotency_key_format_changed'
          : 'idempotency_key_rotated',
        stable,
        first,
        keys,
      ),
    );
  if (step['verify_signature_on_every_delivery'] !== false && !hmacMode(env, found.trigger)) {
    const brand = await brandKeysOf(env, step);
    if (brand.jwks === undefined && refusedByRules(brand.failed?.detail))
      return {
        ...base,
        validations,
        verdict: 'harness_fault',
        fault: `the agent's keys: ${brand.failed?.detail ?? ''}`,
      };
    for (const [i, delivery] of deliveries.entries()) {
      const checked = await verifyDelivery(delivery, brand, env);
      validations.push({ ...checked, description: `delivery ${i + 1}: ${checked.description}` });
    }
  }
  const failed = validations.some((v) => v.verdict === 'failed');
  return { ...base, validations, verdict: failed ? 'failed' : 'passed' };
}

/**
 * protected_resource_metadata (RFC 9728 §3, at the agent's origin) and oauth_auth_server_metadata
 * (RFC 8414 §3, at the first authorization server): fetched, then graded with the step's own
 * validations (http_status, field_present, resource_equals_agent_url).
 */
async function oauthMetadata(task: string, step: JsonObject, base: StepOutcome, env: StepEnv): Promise<StepOutcome> {
  let url: string | undefined;
  if (task === 'protected_resource_metadata') url = protectedResourceUrl(env.run.options.agentUrl);
  else {
    const prm = env.tasks.protectedResource;
    const servers =
      isJsonObject(prm) && Array.isArray(prm['authorization_servers']) ? prm['authorization_servers'] : [];
    const issuer = typeof servers[0] === 'string' ? servers[0] : undefined;
    if (issuer === undefined)
      return {
        ...base,
        verdict: 'skipped',
        skip: {
          reason: 'prerequisite_failed',
          detail: 'no authorization_servers[0] from the protected-resource metadata (probe_protected_resource)',
        },
        cause: `${env.phaseId}/probe_protected_resource`,
      };
    url = authServerMetadataUrl(issuer);
    if (url === undefined)
      return {
        ...base,
        verdict: 'failed',
        request: { tool: task, args: { issuer } },
        validations: [failure('issuer_invalid', 'authorization_servers[0] is an issuer URL', 'a URL', issuer)],
      };
  }
  base.request = { tool: task, args: { url } };
  const got = await fetchJson(url, fetchRules(env, step));
  if (got.http_status === undefined) {
    if (refusedByRules(got.problem) || task === 'protected_resource_metadata')
      return { ...base, verdict: 'harness_fault', fault: got.problem ?? `${url}: no answer` };
    // The agent named an issuer nobody answers at: its metadata points nowhere.
  }
  base.response = {
    status: got.http_status === undefined ? 'unreachable' : `HTTP ${got.http_status}`,
    ...(got.body === undefined ? {} : { body: got.body }),
    ...(got.http_status === undefined ? {} : { http_status: got.http_status }),
  };
  if (task === 'protected_resource_metadata' && got.http_status === 200) env.tasks.protectedResource = got.body;
  return gradeLocal(step, base, env, {
    status: 'completed',
    body: got.body,
    ...(got.http_status === undefined ? {} : { httpStatus: got.http_status }),
    httpHeaders: {},
    tool: task,
  });
}

/** fetch_brand_jwks and assert_jwks_purpose (webhook-emission.yaml, signing_keys_published). */
async function brandJwks(task: string, base: StepOutcome, env: StepEnv): Promise<StepOutcome> {
  const keys = await brandKeysOf(env, {});
  base.request = {
    tool: task,
    args: {
      brand_json_url: keys.brandJsonUrl ?? '(none)',
      ...(keys.jwksUri === undefined ? {} : { jwks_uri: keys.jwksUri }),
    },
  };
  if (keys.jwks === undefined && refusedByRules(keys.failed?.detail))
    return { ...base, verdict: 'harness_fault', fault: keys.failed?.detail ?? '' };
  if (task === 'fetch_brand_jwks') {
    base.response = { status: keys.jwks === undefined ? 'failed' : 'fetched', body: keys.jwks ?? keys.failed };
    const description = 'brand.json reachable and parseable; an agents[] entry has a jwks_uri answering a JWKS';
    const v =
      keys.jwks === undefined
        ? {
            ...failure(keys.failed?.code ?? 'brand_json_unreachable', description, 'a JWKS', keys.failed?.detail ?? ''),
            ...(keys.failed?.hint === undefined ? {} : { note: keys.failed.hint }),
          }
        : passing('fetch_brand_jwks', description, 'a JWKS', `${keys.jwks.keys.length} key(s) at ${keys.jwksUri}`);
    return { ...base, validations: [v], verdict: v.verdict === 'failed' ? 'failed' : 'passed' };
  }
  const v = assertJwksPurpose(keys);
  base.response = { status: v.verdict, body: v.actual };
  return { ...base, validations: [v], verdict: v.verdict === 'failed' ? 'failed' : 'passed' };
}

/**
 * expect_rate_limit_not_replayed (storyboard-schema.yaml; test-kits/rate-limit-trip-runner.yaml):
 * sequential calls of the trip target with fresh idempotency keys until one answers
 * RATE_LIMITED; then, after its retry_after (at most replay_max_wait_seconds), the same key and
 * payload again. The replay must not be the cached RATE_LIMITED. No RATE_LIMITED within
 * max_attempts is not applicable (rate_limit_not_triggered).
 */
async function rateLimitNotReplayed(step: JsonObject, base: StepOutcome, env: StepEnv): Promise<StepOutcome> {
  const spec = isJsonObject(step['rate_limit_trip']) ? step['rate_limit_trip'] : {};
  const target = spec['trip_target_task'];
  const sample = spec['trip_target_sample_request'];
  const attempts = spec['max_attempts'];
  const maxWait = typeof spec['replay_max_wait_seconds'] === 'number' ? spec['replay_max_wait_seconds'] : 30;
  if (
    typeof target !== 'string' ||
    !isJsonObject(sample) ||
    typeof attempts !== 'number' ||
    attempts < 50 ||
    attempts > 500
  )
    return {
      ...base,
      verdict: 'harness_fault',
      fault:
        'rate_limit_trip is outside rate-limit-trip-runner.yaml burst_step_contract (trip_target_task, trip_target_sample_request, max_attempts 50-500): the storyboard is invalid',
    };
  let payload: JsonObject;
  try {
    payload = substitute(sample, env.scope) as JsonObject;
  } catch (error) {
    return { ...base, verdict: 'failed', error: (error as Error).message };
  }
  const conn = env.connection('default', undefined);
  const timeoutMs = env.run.options.stepTimeoutMs ?? 30_000;
  const send = (key: string, body: JsonObject) =>
    conn.client.call(target, { ...body, idempotency_key: key }, { retry: false, timeoutMs, signal: env.run.signal });
  let trip: { key: string; result: TaskResult; attempt: number } | undefined;
  for (let attempt = 1; attempt <= attempts && trip === undefined; attempt += 1) {
    const key = randomUUID();
    let result: TaskResult;
    try {
      result = await send(key, payload);
    } catch (error) {
      if (env.run.signal.aborted)
        return { ...base, verdict: 'harness_fault', fault: 'the run was cut short during this step' };
      return {
        ...base,
        verdict: 'harness_fault',
        fault: `burst call ${attempt} failed on the wire: ${(error as Error).message}`,
      };
    }
    if (errorCodeOf(target, result, result.data) === 'RATE_LIMITED') trip = { key, result, attempt };
  }
  base.request = { tool: target, args: { ...payload, idempotency_key: trip?.key ?? '(fresh per attempt)' } };
  if (trip === undefined)
    return {
      ...base,
      verdict: 'not_applicable',
      skip: {
        reason: 'not_applicable',
        detail: `rate_limit_not_triggered: ${attempts} sequential ${target} calls with fresh keys, none answered RATE_LIMITED (rate-limit-trip-runner.yaml, exhausted_outcome)`,
      },
    };
  // The agent's top-level error.retry_after, wherever the transport put the error.
  const body = isJsonObject(trip.result.data) ? trip.result.data : {};
  const listed = Array.isArray(body['errors']) && isJsonObject(body['errors'][0]) ? body['errors'][0] : {};
  const retryAfter =
    ('error' in trip.result ? trip.result.error?.adcpError.retry_after : undefined) ??
    (isJsonObject(body['adcp_error']) ? body['adcp_error']['retry_after'] : undefined) ??
    listed['retry_after'];
  const description = 'the RATE_LIMITED answer of the trip was not cached as the replay of its idempotency_key';
  if (typeof retryAfter !== 'number' || !(retryAfter >= 0))
    return {
      ...base,
      response: { status: trip.result.status, body: trip.result.data, error_code: 'RATE_LIMITED' },
      verdict: 'failed',
      validations: [
        failure(
          'missing_retry_after',
          'the RATE_LIMITED answer carries error.retry_after (seconds)',
          'a number',
          retryAfter ?? '(absent)',
        ),
      ],
    };
  if (retryAfter > maxWait)
    return {
      ...base,
      response: { status: trip.result.status, body: trip.result.data, error_code: 'RATE_LIMITED' },
      verdict: 'failed',
      validations: [
        failure(
          'replay_wait_exceeded',
          `retry_after at most replay_max_wait_seconds (${maxWait})`,
          maxWait,
          retryAfter,
        ),
      ],
    };
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, retryAfter * 1000);
    env.run.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
  const context = isJsonObject(payload['context']) ? payload['context'] : {};
  let replay: TaskResult;
  try {
    replay = await send(trip.key, {
      ...payload,
      context: { ...context, correlation_id: `${text(context['correlation_id'], 'rate_limit')}--replay` },
    });
  } catch (e) {
    return { ...base, verdict: 'harness_fault', fault: `the replay failed on the wire: ${(e as Error).message}` };
  }
  const code = errorCodeOf(target, replay, replay.data);
  base.response = { status: replay.status, body: replay.data, ...(code === undefined ? {} : { error_code: code }) };
  const cached = code === 'RATE_LIMITED';
  const v = cached
    ? failure('rate_limit_response_cached_as_replay', description, 'not RATE_LIMITED', code)
    : passing('replay_not_cached_rate_limit', description, 'not RATE_LIMITED', code ?? replay.status);
  return {
    ...base,
    validations: [{ ...v, note: `tripped on call ${trip.attempt}; replayed after retry_after ${retryAfter} s` }],
    verdict: cached ? 'failed' : 'passed',
  };
}

/** The ids of a storyboard's `fixtures:` entries (`test-product`, `test-product/test-pricing`), for the report. */
function fixtureIds(fixtures: JsonObject): string[] {
  return FIXTURE_SEEDS.flatMap(([key, , ids]) =>
    (Array.isArray(fixtures[key]) ? fixtures[key].filter(isJsonObject) : []).map((entry) =>
      ids.map((id) => text(entry[id], '?')).join('/'),
    ),
  );
}

/** Seeds `fixtures:` through comply_test_controller in the DAG order of storyboard-schema.yaml. */
async function seedFixtures(
  fixtures: JsonObject,
  run: RunContext,
  conn: ReturnType<typeof clientFor>,
  storyboard: Storyboard,
  outcome: StoryboardOutcome,
): Promise<'seeded' | 'unsupported' | 'skipped'> {
  if (run.agent.tools !== undefined && !run.agent.tools.has('comply_test_controller')) return 'skipped';
  for (const [key, scenario, ids] of FIXTURE_SEEDS) {
    const entries = Array.isArray(fixtures[key]) ? fixtures[key].filter(isJsonObject) : [];
    for (const entry of entries) {
      const params: JsonObject = {};
      for (const id of ids) params[id] = entry[id];
      const rest = Object.fromEntries(Object.entries(entry).filter(([k]) => !ids.includes(k)));
      params['fixture'] = isJsonObject(entry['fixture']) ? entry['fixture'] : rest;
      const args = { scenario, params };
      const step: StepOutcome = {
        phase_id: '__controller_seeding__',
        step_id: `${scenario}.${ids.map((id) => text(entry[id], '?')).join('.')}`,
        title: `seed ${ids.map((id) => String(entry[id])).join('/')}`,
        task: 'comply_test_controller',
        verdict: 'passed',
        request: { tool: 'comply_test_controller', args },
        validations: [],
        duration_ms: 0,
        source: { storyboard: storyboard.file, location: `fixtures.${key}`, doc_ref: 'comply-test-controller.md' },
      };
      const started = Date.now();
      conn.record.status = undefined;
      try {
        const result = await conn.client.call('comply_test_controller', args, {
          retry: false,
          timeoutMs: run.options.stepTimeoutMs ?? 30_000,
          signal: run.signal,
        });
        step.response = { status: result.status, body: result.data };
        const code = 'error' in result ? result.error?.code : undefined;
        const body = result.data;
        const refused =
          code ?? (isJsonObject(body) && body['success'] === false ? text(body['error'], 'refused') : undefined);
        if (refused === 'UNKNOWN_SCENARIO') {
          outcome.verdict = 'not_applicable';
          outcome.skip = {
            reason: 'not_applicable',
            detail: `fixture_seed_unsupported: the agent's controller does not implement ${scenario}`,
          };
          outcome.detail = outcome.skip.detail;
          return 'unsupported';
        }
        if (refused !== undefined && conn.record.status === 401 && !sendsCredentials(run.options)) {
          step.verdict = 'harness_fault';
          step.fault = NO_CREDENTIALS;
        } else if (refused !== undefined) {
          step.verdict = 'failed';
          step.error = `the controller refused ${scenario}: ${refused}`;
        }
      } catch (error) {
        step.verdict = isAdcpWireError(error) && error.code === 'network' ? 'harness_fault' : 'failed';
        step.error = (error as Error).message;
        if (step.verdict === 'harness_fault') step.fault = `environment: ${(error as Error).message}`;
        if (isAdcpWireError(error) && (error.status ?? conn.record.status) === 401 && !sendsCredentials(run.options)) {
          step.verdict = 'harness_fault';
          step.fault = NO_CREDENTIALS;
        }
      }
      step.duration_ms = Date.now() - started;
      outcome.steps.push(step);
      run.options.onEvent?.({ type: 'step', storyboard: storyboard.id, step });
    }
  }
  return 'seeded';
}
