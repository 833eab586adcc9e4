import type { JsonObject } from '../../core/types.js';
import type { IdempotencyStore } from '../../store/idempotency-store.js';
import type { TaskStore } from '../../store/task-store.js';
import { canonicalJson } from '../../webhooks/canonical-json.js';
import { hexDigestOf } from '../../signing/one-shot-digest.js';
import { principalOwner } from '../tasks/adcp-tasks.js';
import { isJsonObject } from '../../core/json-object.js';
import { AdcpToolError } from '../tools/tool-error.js';
import type { AdcpToolDefinition } from '../types.js';
import { createInsertRateLimiter, type InsertLimits } from './insert-rate-limiter.js';

/** security.md, "Keys MUST be unguessable": the schema's pattern for `idempotency_key`. */
const KEY_PATTERN = /^[A-Za-z0-9_.:-]{16,255}$/;

/** security.md, "Payload equivalence": the closed list of fields left out of the hash. */
const EXCLUDED_FROM_HASH: ReadonlySet<string> = new Set(['idempotency_key', 'context', 'governance_context']);

/**
 * SHA-256 (hex) of the RFC 8785 form of the request without the excluded fields (and without
 * `push_notification_config.authentication.credentials`), bound to the tool name: the same key on
 * another tool is another payload (security.md, "Idempotency"). The text is that of
 * `canonicalJson({ payload, tool })`, written without copying the request; one-shot digest.
 */
export function idempotencyPayloadHash(tool: string, args: JsonObject): string {
  let text = '{"payload":{';
  let first = true;
  for (const name of Object.keys(args).sort()) {
    if (EXCLUDED_FROM_HASH.has(name)) continue;
    let value = args[name];
    if (name === 'push_notification_config' && isJsonObject(value) && isJsonObject(value.authentication)) {
      const { credentials: _credentials, ...authentication } = value.authentication;
      value = { ...value, authentication };
    }
    text += `${first ? '' : ','}${JSON.stringify(name)}:${canonicalJson(value)}`;
    first = false;
  }
  return hexDigestOf('sha256', `${text}},"tool":${JSON.stringify(tool)}}`);
}

export interface IdempotencyLayerOptions {
  store: IdempotencyStore;
  /** Where `submitted` answers' tasks live (a replayed task that failed transiently is run again). */
  tasks: TaskStore;
  /** How long a successful answer is replayed (ms). */
  replayTtlMs: number;
  /** How long a request holds its key in flight; a holder that died is taken over after it (ms). */
  inFlightMs: number;
  /** How long a concurrent request with the same key waits for the first one's answer (ms). */
  waitMs: number;
  /** Per-principal insert budgets (security.md, rule 8). Default `DEFAULT_INSERT_LIMITS`. */
  insertLimits?: InsertLimits;
  now?: () => number;
}

export interface IdempotentCall {
  principal: string;
  tool: string;
  args: JsonObject;
  /** A mutating tool: the key is required and counts against the write budget. */
  requiresKey?: boolean;
}

export interface IdempotencyLayer {
  /**
   * Runs `execute` (a tool handler) at most once per (principal, `idempotency_key`, payload)
   * within the replay window, or answers without running it: the stored answer with
   * `replayed: true`, or throws `AdcpToolError` `IDEMPOTENCY_CONFLICT` for another payload,
   * `INVALID_REQUEST` for a malformed key, `IDEMPOTENCY_IN_FLIGHT` when the first request is still
   * running after `waitMs`, `IDEMPOTENCY_EXPIRED` for a key whose window has passed and
   * `RATE_LIMITED` past the principal's insert budget. A call without a key runs as is, unless
   * `requiresKey` (then `INVALID_REQUEST`).
   */
  run(call: IdempotentCall, execute: () => Promise<JsonObject>): Promise<JsonObject>;
  /** The tool with its handler behind `run`; `requiresKey` for a mutating tool. */
  wrap(tool: AdcpToolDefinition, options?: { requiresKey?: boolean }): AdcpToolDefinition;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The seller side of security.md, "Idempotency": rules 1-9 over an `IdempotencyStore`,
 * around each tool handler. Concurrent requests with one key wait for the first one's answer and
 * replay it (wait-and-replay); past `waitMs` they get `IDEMPOTENCY_IN_FLIGHT` with `retry_after`.
 */
export function createIdempotencyLayer(options: IdempotencyLayerOptions): IdempotencyLayer {
  const { store, tasks, replayTtlMs, inFlightMs, waitMs } = options;
  const now = options.now ?? Date.now;
  const limiter = createInsertRateLimiter(options.insertLimits);

  // An async answer whose task later failed with a transient error (the seller died or broke
  // while working on it) is not the key's answer: the work never finished (docs/decisions/0043).
  const isTransientlyFailed = async (principal: string, response: unknown): Promise<boolean> => {
    if (!isJsonObject(response) || response.status !== 'submitted' || typeof response.task_id !== 'string') {
      return false;
    }
    const task = await tasks.get(principalOwner(principal), response.task_id);
    if (task === undefined || task.status !== 'failed' || !isJsonObject(task.result)) return false;
    const error = task.result.adcp_error;
    return isJsonObject(error) && error.recovery === 'transient';
  };

  const runClaimed = async (
    call: IdempotentCall,
    key: string,
    token: string,
    execute: () => Promise<JsonObject>,
  ): Promise<JsonObject> => {
    let body: JsonObject;
    try {
      body = await execute();
    } catch (error) {
      await store.release(call.principal, key, token).catch(() => undefined);
      throw error;
    }
    const status = typeof body.status === 'string' ? body.status : 'completed';
    // Rules 2 and 3: only a success (`completed`, or `submitted` for async work) is the key's
    // answer. If the store fails here the caller still gets the answer; the key stays in flight
    // until its lease lapses.
    if (isJsonObject(body) && !isJsonObject(body.adcp_error) && (status === 'completed' || status === 'submitted')) {
      const { context: _context, replayed: _replayed, ...response } = body;
      await store
        .complete(call.principal, key, token, { response, ttlMs: replayTtlMs, now: now() })
        .catch(() => undefined);
    } else {
      await store.release(call.principal, key, token).catch(() => undefined);
    }
    return body;
  };

  const run = async (call: IdempotentCall, execute: () => Promise<JsonObject>): Promise<JsonObject> => {
    const key = call.args.idempotency_key;
    if (key === undefined) {
      if (call.requiresKey !== true) return execute();
      throw new AdcpToolError(
        'INVALID_REQUEST',
        `idempotency_key is required on ${call.tool}: send a fresh UUID v4 and keep it for every retry.`,
        { field: 'idempotency_key' },
      );
    }
    // Rule 1: a malformed key is refused before the store is consulted. Never echoed: it is a secret.
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      throw new AdcpToolError(
        'INVALID_REQUEST',
        'idempotency_key must be 16 to 255 characters of A-Z a-z 0-9 _ . : - (use a UUID v4).',
        { field: 'idempotency_key' },
      );
    }
    // Rule 8: a key may become a row, so the principal's insert budget is checked before the claim
    // (and spent when the claim inserted one; replays spend nothing).
    const kind = call.requiresKey === true ? 'write' : 'read';
    const admitted = limiter.check(call.principal, kind, now());
    if (!admitted.ok) {
      throw new AdcpToolError('RATE_LIMITED', 'Too many new idempotency keys from this caller; retry later.', {
        recovery: 'transient',
        retryAfter: admitted.retryAfter,
      });
    }
    const payloadHash = idempotencyPayloadHash(call.tool, call.args);
    const deadline = Date.now() + waitMs;
    let delay = 10;
    for (let round = 0; round < 1000; round += 1) {
      const claim = await store.claim(call.principal, key, {
        payloadHash,
        leaseMs: inFlightMs,
        ttlMs: replayTtlMs,
        now: now(),
      });
      if (claim.kind === 'claimed') {
        limiter.count(call.principal, kind, now());
        return runClaimed(call, key, claim.token, execute);
      }
      if (claim.kind === 'conflict') {
        // security.md, "IDEMPOTENCY_CONFLICT response shape": the code and a message, nothing else.
        throw new AdcpToolError(
          'IDEMPOTENCY_CONFLICT',
          'idempotency_key was used with a different payload within the replay window. Either resend the exact original payload (to return the cached response) or generate a fresh UUID v4 to submit this new payload.',
        );
      }
      if (claim.kind === 'expired') {
        throw new AdcpToolError(
          'IDEMPOTENCY_EXPIRED',
          'idempotency_key is past its replay window. Check the resource (for example get_media_buys) before sending this payload again with a fresh UUID v4.',
        );
      }
      if (claim.kind === 'replay') {
        if (await isTransientlyFailed(call.principal, claim.response)) {
          const again = await store.reclaim(call.principal, key, claim.token, { leaseMs: inFlightMs, now: now() });
          if (again !== undefined) return runClaimed(call, key, again.token, execute);
          continue; // another retry took it over first: wait for its answer
        }
        // Rule 4: the stored inner response, marked as a replay at answer time.
        return { ...(claim.response as JsonObject), replayed: true };
      }
      const wall = Date.now();
      if (wall >= deadline) {
        throw new AdcpToolError(
          'IDEMPOTENCY_IN_FLIGHT',
          'A request with this idempotency_key is still being processed; retry with the same key.',
          { recovery: 'transient', retryAfter: Math.max(1, Math.ceil((claim.leaseExpiresAt - now()) / 1000)) },
        );
      }
      await sleep(Math.min(delay, deadline - wall));
      delay = Math.min(delay * 2, 200);
    }
    throw new Error('idempotency: the key never settled');
  };

  return {
    run,
    wrap(tool, wrapOptions = {}) {
      const requiresKey = wrapOptions.requiresKey === true;
      return {
        ...tool,
        handler: (args, context) =>
          run({ principal: context.principal, tool: tool.name, args, requiresKey }, async () =>
            tool.handler(args, context),
          ),
      };
    },
  };
}
