import { ADCP_PROFILE_URI } from '../../core/a2a-wire.js';
import { unknownToolData } from '../tools/tool-error.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AgentCard, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS, TaskState } from '@a2a-js/sdk';
import { DefaultRequestHandler, JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { JsonObject } from '../../core/types.js';
import type { TaskStore } from '../../store/task-store.js';
import type { AdcpTaskRunner } from '../tasks/adcp-tasks.js';
import { createAdcpExecutor } from './a2a-sdk-executor.js';
import { followResubscribeInStore } from './a2a-follow-store.js';
import { A2A_STATE, createSdkTaskStore } from './a2a-sdk-task-store.js';
import { a2aMethodRoute } from '../../core/a2a-wire.js';
import { isJsonObject } from '../../core/json-object.js';
import type { AdcpServing } from '../tools/adcp-serving.js';
import { activationRefusal, profileRpcError, readInvocation, requestActivatesProfile } from './a2a-profile-gate.js';
import type { ProfileMode } from './a2a-profile-gate.js';
import type { AdcpToolDefinition } from '../types.js';
import type { CancelWatch } from '../tasks/cancel-watch.js';
import { resolveParsedOperation, type OperationResolution } from '../../core/resolve-operation.js';
import { principalOwner } from '../tasks/adcp-tasks.js';
import { findInexactInteger } from '../../core/json-number.js';

export interface A2AEndpointOptions {
  tools: Map<string, AdcpToolDefinition>;
  store: TaskStore;
  runner: AdcpTaskRunner;
  adcpVersion: string;
  serving?: AdcpServing;
  requestTimeoutMs: number;
  /** The profile rules this interface enforces (default `profile`). */
  mode?: ProfileMode;
  /** The legacy interface's URL for a request, named when the profiled one refuses `parameters`. */
  legacyUrl?: (req: IncomingMessage) => string;
  /** Aborts work of tasks cancelled through another instance of a fleet (cancel-watch.ts). */
  cancelWatch?: CancelWatch;
}

export interface A2AEndpoint {
  /**
   * Serves one JSON-RPC request (body already read and strictly parsed). `resolution` is the
   * operation the server's gate resolved from that body (`resolveParsedOperation`); without it the
   * endpoint resolves the body itself with the same function.
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    principal: string,
    resolution?: OperationResolution,
  ): Promise<void>;
  close(): Promise<void>;
}

type RpcId = string | number | null;

/**
 * The card the SDK's request handler checks requests against (never served: `cards.ts` builds
 * the served one). It declares streaming and no extensions: with the AdCP extension marked
 * `required` (as the served card has it) the SDK refuses every message whose `A2A-Extensions`
 * header does not list it, and AdCP buyers do not send that header.
 */
const HANDLER_CARD = AgentCard.fromJSON({
  name: 'adcp',
  description: 'AdCP agent',
  version: '1',
  supportedInterfaces: [
    { url: 'http://localhost/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://localhost/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ],
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [],
});

const user = (principal: string) => ({ isAuthenticated: true, userName: principal });

/**
 * A2A JSON-RPC for both wires on the official SDK (`@a2a-js/sdk` 1.x): its request handler
 * and JSON-RPC transports (1.0, and the v0.3 compat layer) over our executor and our
 * owner-scoped task store. The wire is chosen by method name (`SendMessage` vs `message/send`),
 * not by the `A2A-Version` header, so a 1.0 request without the header is still answered.
 * Pre-task failures (no `{ skill, input }` DataPart, unknown skill, task-creation rate limit)
 * are answered here with `data.adcp_error`, which the SDK's error envelopes cannot carry.
 */
export function createA2AEndpoint(options: A2AEndpointOptions): A2AEndpoint {
  const executor = createAdcpExecutor(options);
  const tasks = createSdkTaskStore(options.store);
  const handler = new DefaultRequestHandler(HANDLER_CARD, tasks, executor);
  // A resubscribe served here for a task running on another instance follows the shared store.
  followResubscribeInStore(handler, tasks, { pollMs: 500, timeoutMs: options.requestTimeoutMs });
  const v1 = new JsonRpcTransportHandler(handler);
  const v03 = new LegacyJsonRpcTransportHandler(handler);

  const writeJson = (res: ServerResponse, payload: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
  };
  const rpcError = (id: RpcId, code: number, message: string, data?: JsonObject) => ({
    jsonrpc: '2.0',
    id,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  });
  /** A task-level refusal before handler entry (the gate passed; this is not a transport error). */
  const invalidRequest = (id: RpcId, message: string, field = 'message') =>
    rpcError(id, -32602, 'Invalid request', {
      adcp_error: { code: 'INVALID_REQUEST', message, recovery: 'correctable', field },
    });
  const rateLimited = (id: RpcId, retryAfterMs: number) =>
    rpcError(id, -32029, 'Rate limit exceeded', {
      adcp_error: {
        code: 'RATE_LIMITED',
        message: 'Too many requests.',
        recovery: 'transient',
        retry_after: Math.ceil(retryAfterMs / 1000),
      },
    });

  return {
    async handle(req, res, body, principal, gateResolution) {
      if (!isJsonObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string') {
        writeJson(res, rpcError(null, -32600, 'Invalid JSON-RPC request'));
        return;
      }
      const id: RpcId = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
      // A lookup in a Map: `constructor`, `__proto__`, `toString` are not methods.
      const route = a2aMethodRoute(body.method);
      if (route === undefined) {
        writeJson(res, rpcError(id, -32601, 'Method not found'));
        return;
      }
      const { wire, operation: op } = route;
      const mode = options.mode ?? 'profile';
      // The response confirms activation (a2a-profile-extension.md, "Advertisement and activation").
      if (requestActivatesProfile(req)) res.setHeader('A2A-Extensions', ADCP_PROFILE_URI);
      const notActivated = activationRefusal(req, wire, mode);
      if (notActivated !== undefined) {
        writeJson(res, { jsonrpc: '2.0', id, error: notActivated });
        return;
      }
      let request: JsonObject = body;
      const state = new Map<string, unknown>([
        ['headers', req.headers],
        [A2A_STATE.principal, principal],
      ]);
      if (op === 'send' || op === 'stream') {
        const params = isJsonObject(body.params) ? body.params : {};
        // One source (security.md, "Operation resolution over A2A", rule 3): the operation is the
        // one the signature gate resolved from these bytes, never re-derived from the Message.
        const resolution = gateResolution ?? resolveParsedOperation(body);
        const parsed = readInvocation(req, wire, mode, params.message, options.legacyUrl?.(req));
        if (!parsed.ok) {
          writeJson(res, { jsonrpc: '2.0', id, error: profileRpcError(parsed.code, parsed.message) });
          return;
        }
        if (!resolution.ok) {
          writeJson(res, { jsonrpc: '2.0', id, error: profileRpcError('invalid_a2a_message', resolution.reason) });
          return;
        }
        if (resolution.kind !== 'operation' || resolution.operation !== parsed.skill) {
          // The profile reader and the resolver disagree: refuse before any handler (rule 3).
          writeJson(res, invalidRequest(id, 'The Message does not resolve to the operation the gate resolved.'));
          return;
        }
        const operation = resolution.operation;
        // a2a-profile-extension.md, "JSON number interoperability": refuse, never round.
        const inexact = findInexactInteger(parsed.input);
        if (inexact !== undefined) {
          const message = `input ${inexact} is an integer outside ±(2^53−1), which A2A cannot carry exactly: send it as a string.`;
          writeJson(res, invalidRequest(id, message, `input${inexact}`));
          return;
        }
        state.set(A2A_STATE.input, parsed.input);
        state.set(A2A_STATE.operation, operation);
        if (resolution.taskId !== undefined) {
          // Task continuation binding: only the principal's own task of this same operation.
          const owner = principalOwner(principal);
          let createdFor = executor.operationOf(owner, resolution.taskId);
          if (createdFor === undefined) {
            const stored = await options.store.get(owner, resolution.taskId);
            if (stored?.kind === 'a2a') createdFor = stored.taskType;
          }
          if (createdFor !== operation) {
            writeJson(
              res,
              invalidRequest(id, 'message.taskId names no task of this operation created by this caller.'),
            );
            return;
          }
        }
        if (!options.tools.has(operation)) {
          writeJson(res, rpcError(id, -32602, 'Unknown skill', unknownToolData('skill')));
          return;
        }
        // AdCP tools are single-turn: every message starts a new task. The SDK would continue a
        // task named in `taskId` (re-running the tool on it) and look up `referenceTaskIds`.
        const { taskId: _taskId, referenceTaskIds: _references, ...message } = params.message as JsonObject;
        request = { ...body, params: { ...params, message } };
        const config = isJsonObject(params.configuration) ? params.configuration : {};
        const blocking =
          op === 'send' && (wire === '1.0' ? config.returnImmediately !== true : config.blocking !== false);
        state.set(A2A_STATE.durable, !blocking);
        // v0.3 says an absent `blocking` blocks (as the 0.3 SDK server does); the 1.x compat layer
        // reads a configuration without it as non-blocking, so spell it out.
        if (wire === '0.3' && isJsonObject(params.configuration) && config.blocking === undefined) {
          request = { ...request, params: { ...params, message, configuration: { ...config, blocking: true } } };
        }
      }
      if (op === 'resubscribe') {
        // The response closes when it ends or the client goes away; either way nobody reads on.
        const clientGone = new AbortController();
        res.once('close', () => clientGone.abort());
        state.set(A2A_STATE.clientGone, clientGone.signal);
      }
      const context = new ServerCallContext({ user: user(principal), requestedVersion: wire, state });
      if (op === 'cancel' && isJsonObject(body.params) && typeof body.params.id === 'string' && body.params.id !== '') {
        // The SDK answers a second cancel with the canceled task; a task that can no longer be
        // canceled is TaskNotCancelableError (-32002), already canceled included.
        const existing = await tasks.load(body.params.id, context);
        if (existing?.status?.state === TaskState.TASK_STATE_CANCELED) {
          writeJson(res, rpcError(id, -32002, 'Task cannot be canceled'));
          return;
        }
      }
      const answer = await (wire === '1.0' ? v1 : v03).handle(request, context);
      const refusedMs = () => state.get(A2A_STATE.rateLimitedMs);
      if (!(Symbol.asyncIterator in answer)) {
        const retryAfterMs = refusedMs();
        writeJson(res, typeof retryAfterMs === 'number' ? rateLimited(id, retryAfterMs) : answer);
        return;
      }
      const mapError = (error: unknown) =>
        wire === '1.0'
          ? JsonRpcTransportHandler.mapToJSONRPCError(error)
          : LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error);
      let first: IteratorResult<unknown>;
      try {
        first = await answer.next();
      } catch (error) {
        writeJson(res, { jsonrpc: '2.0', id, error: mapError(error) });
        return;
      }
      const retryAfterMs = refusedMs();
      if (typeof retryAfterMs === 'number') {
        writeJson(res, rateLimited(id, retryAfterMs));
        return;
      }
      res.writeHead(200, SSE_HEADERS);
      try {
        if (first.done !== true) res.write(formatSSEEvent(first.value));
        for await (const event of answer) res.write(formatSSEEvent(event));
      } catch (error) {
        res.write(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: mapError(error) }));
      } finally {
        res.end();
      }
    },
    async close() {
      await executor.abortAll();
    },
  };
}
