// Real A2A servers for the tests: @a2a-js/sdk 0.3.x (npm alias a2a-sdk-v03) and the 1.x SDK,
// with and without its legacy-compat mode, on 127.0.0.1:0, playing a Script.
import express from 'express';
import type { Server } from 'node:http';
import * as V03Server from 'a2a-sdk-v03/server';
import { A2AExpressApp } from 'a2a-sdk-v03/server/express';
import * as V1Server from '@a2a-js/sdk/server';
import { jsonRpcHandler, agentCardHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { TaskState, Role } from '@a2a-js/sdk';
import { FINAL_STATES, invocationOf, type Script, type ScriptPart, type ScriptState } from './scenario.js';

export interface TestServer {
  base: string;
  /** JSON-RPC requests received, by method. */
  calls: string[];
  /** A2A-Version header of each request. */
  versions: (string | undefined)[];
  /** A2A-Extensions header of each request. */
  extensions: (string | undefined)[];
  close(): Promise<void>;
}

export type ServerKind = 'v0.3' | 'v1' | 'v1-compat';

const SKILLS = [
  { id: 'get_adcp_capabilities', name: 'Capabilities', description: 'Runtime discovery', tags: ['adcp'] },
  { id: 'get_task_status', name: 'Task status', description: 'Poll AdCP work', tags: ['adcp'] },
  { id: 'get_products', name: 'Get products', description: 'Discover products', tags: ['adcp'] },
  { id: 'create_media_buy', name: 'Create media buy', description: 'Buy', tags: ['adcp'] },
];

async function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, base: `http://127.0.0.1:${address.port}` };
}

function track(
  app: express.Express,
  calls: string[],
  versions: (string | undefined)[],
  extensions: (string | undefined)[] = [],
): void {
  app.use(express.json({ limit: '5mb' }), (req, _res, next) => {
    if (req.method === 'POST' && typeof req.body?.method === 'string') {
      calls.push(req.body.method);
      versions.push(req.header('a2a-version'));
      extensions.push(req.header('a2a-extensions'));
    }
    next();
  });
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

// ---- v0.3 ----

function v03Part(part: ScriptPart): Record<string, unknown> {
  if ('text' in part) return { kind: 'text', text: part.text };
  if ('data' in part) return { kind: 'data', data: part.data };
  return {
    kind: 'file',
    file: {
      uri: part.url,
      ...(part.filename ? { name: part.filename } : {}),
      ...(part.mediaType ? { mimeType: part.mediaType } : {}),
    },
  };
}

/** A @a2a-js/sdk 0.3.x server playing `script`. */
export async function startV03Server(script: Script): Promise<TestServer> {
  const app = express();
  const calls: string[] = [];
  const versions: (string | undefined)[] = [];
  const extensions: (string | undefined)[] = [];
  track(app, calls, versions, extensions);
  const { server, base } = await listen(app);
  const card = {
    name: 'v03 seller',
    description: 'test',
    version: '1',
    url: `${base}/`,
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: SKILLS,
  };
  const executor = {
    async execute(
      ctx: { userMessage: { parts: unknown[] }; taskId: string; contextId: string; task?: unknown },
      bus: { publish(e: unknown): void; finished(): void },
    ) {
      const { skill, input } = invocationOf(ctx.userMessage.parts);
      const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
      if (ctx.task === undefined)
        bus.publish({
          kind: 'task',
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: 'submitted' },
          history: [ctx.userMessage],
        });
      for (const step of script(skill, input, ids)) {
        if ('wait' in step) await step.wait;
        else if ('artifact' in step) {
          bus.publish({
            kind: 'artifact-update',
            ...ids,
            artifact: { artifactId: step.artifact.id, parts: step.artifact.parts.map(v03Part) },
            append: step.artifact.append ?? false,
            lastChunk: step.artifact.lastChunk ?? true,
          });
        } else {
          const message =
            step.message === undefined
              ? undefined
              : {
                  kind: 'message',
                  messageId: `m-${Math.random()}`,
                  role: 'agent',
                  parts: step.message.map(v03Part),
                  ...ids,
                };
          bus.publish({
            kind: 'status-update',
            ...ids,
            status: { state: step.state, ...(message ? { message } : {}) },
            final: FINAL_STATES.includes(step.state),
          });
        }
      }
      bus.finished();
    },
    async cancelTask(taskId: string, bus: { publish(e: unknown): void; finished(): void }) {
      bus.publish({ kind: 'status-update', taskId, contextId: '', status: { state: 'canceled' }, final: true });
      bus.finished();
    },
  };
  const handler = new V03Server.DefaultRequestHandler(card, new V03Server.InMemoryTaskStore(), executor);
  new A2AExpressApp(handler).setupRoutes(app);
  return { base, calls, versions, extensions, close: closer(server) };
}

// ---- 1.x ----

const V1_STATES: Record<ScriptState, TaskState> = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
  'auth-required': TaskState.TASK_STATE_AUTH_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
  rejected: TaskState.TASK_STATE_REJECTED,
};

function v1Part(part: ScriptPart): Record<string, unknown> {
  const common = { metadata: undefined, filename: '', mediaType: '' };
  if ('text' in part) return { ...common, content: { $case: 'text', value: part.text } };
  if ('data' in part) return { ...common, content: { $case: 'data', value: part.data } };
  return {
    ...common,
    content: { $case: 'url', value: part.url },
    filename: part.filename ?? '',
    mediaType: part.mediaType ?? '',
  };
}

/**
 * A 1.x SDK server playing `script`; `compat` also serves v0.3 on the same endpoint; `plain`
 * does not declare the AdCP A2A profile on its card (a plain A2A 1.0 agent).
 */
export async function startV1Server(
  script: Script,
  options: { compat?: boolean; noCard?: boolean; plain?: boolean } = {},
): Promise<TestServer> {
  const compat = options.compat === true;
  const app = express();
  const calls: string[] = [];
  const versions: (string | undefined)[] = [];
  const extensions: (string | undefined)[] = [];
  track(app, calls, versions, extensions);
  const { server, base } = await listen(app);
  const iface = (protocolVersion: string) => ({
    url: `${base}/a2a`,
    protocolBinding: 'JSONRPC',
    protocolVersion,
    tenant: '',
  });
  const card = {
    name: 'v1 seller',
    description: 'test',
    version: '1',
    provider: undefined,
    supportedInterfaces: compat ? [iface('1.0'), iface('0.3')] : [iface('1.0')],
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions:
        options.plain === true
          ? []
          : [
              {
                uri: 'https://adcontextprotocol.org/extensions/adcp/v3',
                description: 'AdCP',
                required: true,
                params: undefined,
              },
            ],
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: SKILLS.map((s) => ({ ...s, examples: [], inputModes: [], outputModes: [], securityRequirements: [] })),
    signatures: [],
  };
  const executor = {
    async execute(ctx: V1Server.RequestContext, bus: V1Server.ExecutionEventBus) {
      const { skill, input } = invocationOf(ctx.userMessage.parts);
      const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
      if (ctx.task === undefined) {
        bus.publish(
          V1Server.AgentEvent.task({
            id: ctx.taskId,
            contextId: ctx.contextId,
            status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined },
            artifacts: [],
            history: [ctx.userMessage],
            metadata: undefined,
          }),
        );
      } else {
        // A continued task (input-required answered): a stream's first event must be the Task.
        bus.publish(
          V1Server.AgentEvent.task({
            ...ctx.task,
            status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
          }),
        );
      }
      for (const step of script(skill, input, ids)) {
        if ('wait' in step) await step.wait;
        else if ('artifact' in step) {
          bus.publish(
            V1Server.AgentEvent.artifactUpdate({
              ...ids,
              artifact: {
                artifactId: step.artifact.id,
                name: '',
                description: '',
                parts: step.artifact.parts.map(v1Part) as never,
                metadata: undefined,
                extensions: [],
              },
              append: step.artifact.append ?? false,
              lastChunk: step.artifact.lastChunk ?? true,
              metadata: undefined,
            }),
          );
        } else {
          const message =
            step.message === undefined
              ? undefined
              : {
                  messageId: `m-${Math.random()}`,
                  ...ids,
                  role: Role.ROLE_AGENT,
                  parts: step.message.map(v1Part) as never,
                  metadata: undefined,
                  extensions: [],
                  referenceTaskIds: [],
                };
          bus.publish(
            V1Server.AgentEvent.statusUpdate({
              ...ids,
              status: { state: V1_STATES[step.state], message, timestamp: undefined },
              metadata: undefined,
            }),
          );
        }
      }
      bus.finished();
    },
    async cancelTask(taskId: string, bus: V1Server.ExecutionEventBus) {
      bus.publish(
        V1Server.AgentEvent.statusUpdate({
          taskId,
          contextId: '',
          status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: undefined },
          metadata: undefined,
        }),
      );
      bus.finished();
    },
  };
  const handler = new V1Server.DefaultRequestHandler(card, new V1Server.InMemoryTaskStore(), executor);
  const legacy = compat ? { legacyCompat: { enabled: true } } : {};
  if (options.noCard !== true)
    app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, ...legacy }));
  app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, ...legacy }));
  return { base, calls, versions, extensions, close: closer(server) };
}

/** Starts the server of `kind`. */
export function startServer(kind: ServerKind, script: Script): Promise<TestServer> {
  return kind === 'v0.3' ? startV03Server(script) : startV1Server(script, { compat: kind === 'v1-compat' });
}
