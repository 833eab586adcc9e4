import { signatureChallengeError } from '../core/signature-challenge.js';
import type { AdcpClient } from '../client/index.js';
import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import { resolvePath } from './paths.js';
import {
  planVector,
  resignHeaders,
  type AgentSigningFacts,
  type SigningVector,
  type SigningVectorSet,
} from './signed-vectors.js';
import type { StepOutcome, ValidationOutcome } from './types.js';

/**
 * What the last HTTP exchange of a storyboard connection looked like (http_status checks, the
 * report), and the hook the signed_requests vectors use to send their own signature headers on
 * the connection's next AdCP call (its session, endpoint and wire stay the connection's).
 */
export interface HttpRecord {
  status?: number | undefined;
  headers?: Record<string, string> | undefined;
  sent?: unknown;
  /** Rewrites the next AdCP call's POST (MCP tools/call, A2A message), once. */
  rewrite?: ((url: string, headers: Record<string, string>, body: string) => RewrittenRequest) | undefined;
  /** The rewritten request as sent, with its answer. */
  rewritten?: (RewrittenRequest & { status?: number; answer?: Record<string, string> }) | undefined;
  /** The last POST the client sent (the endpoint and its session headers). */
  lastPost?: { url: string; headers: Record<string, string> };
}

export interface RewrittenRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The JSON-RPC methods that carry an AdCP call (the ones a rewrite applies to). */
export const CALL_METHODS = new Set([
  'tools/call',
  'SendMessage',
  'SendStreamingMessage',
  'message/send',
  'message/stream',
]);

/** Headers a vector request never inherits from the connection: credentials and signatures are the vector's. */
const VECTOR_OWNED = ['authorization', 'signature', 'signature-input', 'content-digest', 'content-type'];

export interface VectorPhaseContext {
  vectors: SigningVectorSet;
  conn: Connection;
  /**
   * Where an AdCP session is bound to its caller (the 2025 MCP era), the connection for a request
   * the agent should accept as `keyid`: one whose own requests (initialize, ...) that key signs,
   * so the session's caller and the vector's are one. Undefined: `conn` for every vector.
   */
  connectionFor?: ((keyid: string) => Connection) | undefined;
  /** The run's fetch (raw sends: vector 016's second copy, vector 028). */
  fetch: typeof fetch;
  agent: AgentSigningFacts;
  /** The storyboard's test kit (signed-requests-runner.yaml). */
  kit: unknown;
  /** The keyid the run's own `signing` uses, if any (vector 020 fills the other one). */
  runKeyid: string | undefined;
  storyboardFile: string;
  phaseIndex: number;
  timeoutMs: number;
  signal: AbortSignal;
}

type Connection = { client: AdcpClient; record: HttpRecord };

const RATE_WINDOW_SECONDS = 60;

/**
 * The connection a vector's call goes over: the storyboard's own, or where sessions are bound to
 * their caller, one signed by the runner key the vector's accepted request carries.
 */
function connectionOf(vector: SigningVector, ctx: VectorPhaseContext, keyidOverride?: string): Connection {
  if (ctx.connectionFor === undefined) return ctx.conn;
  const keyid = keyidOverride ?? /;keyid="([^"]*)"/.exec(vector.request.headers['signature-input'] ?? '')?.[1];
  const accepted =
    vector.kind === 'positive' || vector.requires_contract === 'replay_window' || keyidOverride !== undefined;
  return accepted && keyid !== undefined && runnerKeyids(ctx).includes(keyid) ? ctx.connectionFor(keyid) : ctx.conn;
}

/** The test kit's runner_signing_keys whose private half keys.json has. */
function runnerKeyids(ctx: VectorPhaseContext): string[] {
  const listed = resolvePath(ctx.kit, 'runner_signing_keys')?.value;
  return (Array.isArray(listed) ? listed : [])
    .map((k) => (isJsonObject(k) && typeof k['keyid'] === 'string' ? k['keyid'] : undefined))
    .filter((k): k is string => k !== undefined && ctx.vectors.keys.some((j) => j.kid === k));
}

/** Grades one phase's vectors (`positive_vectors` or `negative_vectors`), one step each, in file order; rate abuse last. */
export async function runVectorPhase(
  kind: 'positive' | 'negative',
  phaseId: string,
  ctx: VectorPhaseContext,
  onStep: (step: StepOutcome) => void,
): Promise<void> {
  const list = [...ctx.vectors[kind]].sort(
    (a, b) => Number(a.requires_contract === 'rate_abuse') - Number(b.requires_contract === 'rate_abuse'),
  );
  for (const vector of list) {
    if (ctx.signal.aborted) return;
    const started = Date.now();
    const base = baseOutcome(vector, phaseId, ctx);
    let step: StepOutcome;
    try {
      step = await runVector(vector, base, ctx);
    } catch (error) {
      step = {
        ...base,
        verdict: 'harness_fault',
        fault: `the runner could not send ${vector.file}: ${(error as Error).message}`,
      };
    }
    step.duration_ms = Date.now() - started;
    onStep(step);
  }
}

function baseOutcome(vector: SigningVector, phaseId: string, ctx: VectorPhaseContext): StepOutcome {
  const id = vector.file.replace(/^.*\//, '').replace(/\.json$/, '');
  const expects = vector.expected.success
    ? 'the agent accepts it (2xx)'
    : `401 with WWW-Authenticate: Signature error="${vector.expected.error_code ?? ''}"`;
  return {
    phase_id: phaseId,
    step_id: id,
    title: `${vector.kind === 'positive' ? 'Positive' : 'Negative'} ${id}: ${vector.name}`,
    task: '',
    verdict: 'passed',
    validations: [],
    duration_ms: 0,
    source: {
      storyboard: ctx.storyboardFile,
      location: `phases[${ctx.phaseIndex}], vector ${vector.file} of ${ctx.vectors.source}`,
      ...(vector.spec_reference === undefined ? {} : { doc_ref: `security.mdx${vector.spec_reference}` }),
      expected_text: `${vector.file} checks: ${vector.name}. Expected: ${expects}.`,
    },
  };
}

async function runVector(vector: SigningVector, base: StepOutcome, ctx: VectorPhaseContext): Promise<StepOutcome> {
  const plan = planVector(vector, ctx.agent);
  if (!plan.send) {
    if (vector.requires_contract !== undefined) {
      // signed-requests.yaml, grading: contract vectors the runner cannot satisfy "grade as FAIL, never as SKIP".
      return {
        ...base,
        verdict: 'failed',
        error: `${plan.why}; a requires_contract vector grades as FAIL, never as SKIP (signed-requests.yaml)`,
      };
    }
    return { ...base, verdict: 'not_applicable', skip: { reason: 'not_applicable', detail: plan.why } };
  }
  base.task = plan.operation;
  if (plan.notes.length > 0) base.built = plan.notes.map((note) => ({ pointer: '', from: note }));
  if (plan.form === 'raw') return sendRaw(vector, plan.args, base, ctx);
  if (vector.requires_contract === 'rate_abuse') return rateAbuse(vector, plan, base, ctx);
  const first = await sendCall(vector, plan, ctx, {});
  base.request = requestOf(plan.operation, plan.args, first.sent);
  if (first.fault !== undefined) return { ...base, verdict: 'harness_fault', fault: first.fault };
  if (vector.requires_contract === 'replay_window') {
    // signed-requests-runner.yaml, replay_window: the same signed request twice; the first accepted.
    if (!accepted(first.status)) {
      return graded(base, [acceptCheck(vector, first, 'the first copy (the replay contract sends it twice)')], first);
    }
    const again = await resend(first.sent, ctx);
    return graded(
      base,
      [acceptCheck(vector, first, 'the first copy'), refuseCheck(vector, again, 'the second, identical copy')],
      again,
    );
  }
  return graded(base, [vector.kind === 'positive' ? acceptCheck(vector, first) : refuseCheck(vector, first)], first);
}

interface Answer {
  status?: number;
  challenge?: string;
  sent?: { url: string; headers: Record<string, string>; body: string };
  fault?: string;
}

const accepted = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

/** Sends the vector as the connection's next AdCP call, its headers swapped for the vector's. */
async function sendCall(
  vector: SigningVector,
  plan: Extract<ReturnType<typeof planVector>, { send: true }>,
  ctx: VectorPhaseContext,
  resign: { keyid?: string; validitySeconds?: number },
): Promise<Answer> {
  const conn = connectionOf(vector, ctx, resign.keyid);
  const record = conn.record;
  record.rewritten = undefined;
  let problem: string | undefined;
  record.rewrite = (url, headers, body) => {
    const target = plan.query === undefined ? url : `${url}${url.includes('?') ? '&' : '?'}${plan.query}`;
    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (!VECTOR_OWNED.includes(name)) kept[name] = value;
    try {
      const signed = resignHeaders(vector, { method: 'POST', url: target, body }, ctx.vectors.keys, {
        now: Math.floor(Date.now() / 1000),
        ...resign,
      });
      return { url: target, headers: { ...kept, ...signed.headers }, body };
    } catch (error) {
      problem = (error as Error).message;
      throw error;
    }
  };
  try {
    await conn.client.call(plan.operation, plan.args, {
      retry: false,
      timeoutMs: ctx.timeoutMs,
      signal: ctx.signal,
      omitIdempotencyKey: true,
    });
  } catch {
    // The answer is read from the wire below: a refusal is what most vectors expect.
  }
  record.rewrite = undefined;
  // Set by the connection's fetch during the call (the narrowing above does not see it).
  const sent = record.rewritten as HttpRecord['rewritten'];
  if (problem !== undefined) return { fault: problem };
  if (sent === undefined)
    return { fault: `the connection sent no ${plan.operation} call (the client refused it before the wire)` };
  const challenge = sent.answer?.['www-authenticate'];
  return {
    sent: { url: sent.url, headers: sent.headers, body: sent.body },
    ...(sent.status === undefined ? {} : { status: sent.status }),
    ...(challenge === undefined ? {} : { challenge }),
  };
}

/** Sends a request again, byte for byte (vector 016's second copy). */
async function resend(sent: Answer['sent'], ctx: VectorPhaseContext): Promise<Answer> {
  if (sent === undefined) return { fault: 'nothing to send again' };
  return post(sent, ctx);
}

async function post(request: NonNullable<Answer['sent']>, ctx: VectorPhaseContext): Promise<Answer> {
  try {
    const response = await ctx.fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.timeoutMs)]),
    });
    await response.body?.cancel().catch(() => undefined);
    const challenge = response.headers.get('www-authenticate');
    return { sent: request, status: response.status, ...(challenge === null ? {} : { challenge }) };
  } catch (error) {
    return { sent: request, fault: `environment: ${(error as Error).message}` };
  }
}

/** A vector whose body is its own JSON-RPC request (028): sent to the connection's endpoint with its session headers. */
async function sendRaw(
  vector: SigningVector,
  body: JsonObject,
  base: StepOutcome,
  ctx: VectorPhaseContext,
): Promise<StepOutcome> {
  let last = ctx.conn.record.lastPost;
  if (last === undefined) {
    await ctx.conn.client
      .call('get_adcp_capabilities', {}, { retry: false, timeoutMs: ctx.timeoutMs, signal: ctx.signal })
      .catch(() => undefined);
    last = ctx.conn.record.lastPost;
  }
  if (last === undefined)
    return {
      ...base,
      verdict: 'harness_fault',
      fault: 'the connection has sent no request: its endpoint is not known',
    };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(last.headers)) if (!VECTOR_OWNED.includes(name)) headers[name] = value;
  const text = vector.request.body;
  const signed = resignHeaders(vector, { method: 'POST', url: last.url, body: text }, ctx.vectors.keys, {
    now: Math.floor(Date.now() / 1000),
  });
  const answer = await post({ url: last.url, headers: { ...headers, ...signed.headers }, body: text }, ctx);
  base.request = requestOf(base.task, body, answer.sent);
  if (answer.fault !== undefined) return { ...base, verdict: 'harness_fault', fault: answer.fault };
  return graded(base, [vector.kind === 'positive' ? acceptCheck(vector, answer) : refuseCheck(vector, answer)], answer);
}

/**
 * Vector 020 (signed-requests-runner.yaml, rate_abuse): up to cap + 1 distinct-nonce requests by one
 * runner key within the window; the agent must refuse one with request_signature_rate_abuse. The
 * key is the runner key the run's own signing does not use, and each fill signature lives
 * RATE_WINDOW_SECONDS, so the filled cache empties soon after (decision 0230).
 */
async function rateAbuse(
  vector: SigningVector,
  plan: Extract<ReturnType<typeof planVector>, { send: true }>,
  base: StepOutcome,
  ctx: VectorPhaseContext,
): Promise<StepOutcome> {
  const contract = resolvePath(ctx.kit, 'stateful_vector_contract.rate_abuse')?.value;
  const capValue = isJsonObject(contract) ? contract['grading_target_per_keyid_cap_requests'] : undefined;
  const cap = typeof capValue === 'number' && capValue > 0 && capValue <= 10_000 ? capValue : 100;
  const keyid = runnerKeyids(ctx)
    .reverse()
    .find((k) => k !== ctx.runKeyid);
  if (keyid === undefined) {
    return { ...base, verdict: 'harness_fault', fault: 'the test kit names no runner signing key found in keys.json' };
  }
  base.built = [
    ...(base.built ?? []),
    {
      pointer: '',
      from: `signed as ${keyid} (a runner key the run's own signing does not use), each signature valid ${RATE_WINDOW_SECONDS} s, up to ${cap + 1} requests (grading_target_per_keyid_cap_requests ${cap})`,
    },
  ];
  let acceptedCount = 0;
  let last: Answer = {};
  for (let i = 0; i <= cap; i += 1) {
    if (ctx.signal.aborted)
      return { ...base, verdict: 'harness_fault', fault: 'the run was cut short during this step' };
    last = await sendCall(vector, plan, ctx, { keyid, validitySeconds: RATE_WINDOW_SECONDS });
    if (last.fault !== undefined) return { ...base, verdict: 'harness_fault', fault: last.fault };
    if (!accepted(last.status)) break;
    acceptedCount += 1;
  }
  base.request = requestOf(plan.operation, plan.args, last.sent);
  const check = refuseCheck(vector, last, `request ${acceptedCount + 1} by ${keyid}`);
  if (acceptedCount > cap)
    check.note = `the agent accepted all ${acceptedCount} signatures by ${keyid} within ${RATE_WINDOW_SECONDS} s; the contract's grading cap is ${cap} per keyid`;
  else
    check.note = `${acceptedCount} signatures accepted before this one${check.note === undefined ? '' : `; ${check.note}`}`;
  return graded(base, [check], last);
}

function requestOf(operation: string, args: JsonObject, sent: Answer['sent']): NonNullable<StepOutcome['request']> {
  const shown: JsonObject = { ...args };
  if (sent !== undefined) {
    const signature: JsonObject = { url: sent.url };
    for (const name of ['content-type', 'content-digest', 'signature-input', 'signature'])
      if (sent.headers[name] !== undefined) signature[name] = sent.headers[name];
    shown['$http'] = signature;
  }
  return { tool: operation, args: shown, auth: 'none (the vector is the credential)' };
}

function acceptCheck(vector: SigningVector, answer: Answer, which = 'the request'): ValidationOutcome {
  const ok = accepted(answer.status);
  const code = signatureChallengeError(answer.challenge);
  return {
    check: 'signed_request_accepted',
    description: `the agent accepts ${which} of ${vector.file} (${vector.name}): a 2xx answer`,
    verdict: ok ? 'passed' : 'failed',
    severity: 'required',
    json_pointer: null,
    expected: '2xx',
    actual: { http_status: answer.status ?? null, ...(code === undefined ? {} : { signature_error: code }) },
    ...(ok || code === undefined ? {} : { note: `refused with Signature error="${code}"` }),
  };
}

function refuseCheck(vector: SigningVector, answer: Answer, which = 'the request'): ValidationOutcome {
  const code = signatureChallengeError(answer.challenge);
  const expected = vector.expected.error_code ?? '';
  const ok = answer.status === 401 && code === expected;
  return {
    check: 'signed_request_refused',
    description: `the agent refuses ${which} of ${vector.file} (${vector.name}) with 401 and WWW-Authenticate: Signature error="${expected}" (byte for byte)`,
    verdict: ok ? 'passed' : 'failed',
    severity: 'required',
    json_pointer: null,
    expected: { http_status: 401, signature_error: expected },
    actual: {
      http_status: answer.status ?? null,
      signature_error: code ?? null,
      ...(answer.challenge === undefined ? {} : { www_authenticate: answer.challenge.slice(0, 300) }),
    },
    ...(!ok && accepted(answer.status) ? { note: 'the agent accepted a request the vector says it must refuse' } : {}),
  };
}

function graded(base: StepOutcome, validations: ValidationOutcome[], answer: Answer): StepOutcome {
  const code = signatureChallengeError(answer.challenge);
  return {
    ...base,
    validations,
    verdict: validations.some((v) => v.verdict === 'failed') ? 'failed' : 'passed',
    response: {
      status: answer.status === undefined ? 'no answer' : `http ${answer.status}`,
      ...(answer.status === undefined ? {} : { http_status: answer.status }),
      ...(code === undefined ? {} : { error_code: code }),
    },
  };
}
