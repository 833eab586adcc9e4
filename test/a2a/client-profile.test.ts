// AdcpClient under the AdCP A2A Profile Extension v3 against a raw A2A 1.0 seller on 127.0.0.1 that
// serves the official vectors' cards and answers (../shared/vectors/a2a-profile-extension-v3.json):
// card checks at discovery, response refusals with the vector's rule, get_task_status polling.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdcpClient } from '../../src/client/index.js';
import { AdcpWireError } from '../../src/index.js';
import { startRawServer, sendJson, v1Card, v03Task, type RawServer, type RawRequest } from './raw-server.js';

type Json = Record<string, unknown>;
const here = path.dirname(fileURLToPath(import.meta.url));
const vectors = JSON.parse(
  readFileSync(path.resolve(here, '../../../shared/vectors/a2a-profile-extension-v3.json'), 'utf8'),
) as Record<string, Json[]>;
const vector = (group: string, id: string): Json => {
  const found = vectors[group]?.find((v) => v['id'] === id);
  assert.ok(found, `vector ${id} missing`);
  return found;
};
const PROFILE_URI = 'https://adcontextprotocol.org/extensions/adcp/v3';

/** The Message of a 1.0 send. */
function messageOf(req: RawRequest): Json {
  const message = req.body?.params?.['message'];
  assert.ok(typeof message === 'object' && message !== null, 'request without a message');
  return message as Json;
}

/** The `{ skill, input }` of a 1.0 request's DataPart. */
function invocation(req: RawRequest): { skill?: string; input?: Json } {
  const parts = (messageOf(req)['parts'] ?? []) as Json[];
  const data: unknown = parts.find((p) => 'data' in p)?.['data'];
  return typeof data === 'object' && data !== null ? data : {};
}

/** A card of `vector` with its interface pointed at this server (the vectors' cards name example hosts). */
function vectorCard(id: string, base: string, rpcPath: string): Json {
  const card = structuredClone(vector('advertisement_vectors', id)['agent_card']) as Json;
  card['supportedInterfaces'] = [{ url: `${base}${rpcPath}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }];
  return card;
}

/** Answers each SendMessage of a route with the response of a response vector (its JSON-RPC `result`). */
const ANSWERS: Record<string, string> = {
  bare: 'bare-send-message-task-invalid',
  duplicated: 'duplicated-adcp-task-id-invalid',
  submitted: 'submitted-inside-completed-a2a-task',
};

describe('AdcpClient and the AdCP A2A profile (raw 1.0 seller serving the vectors)', () => {
  let raw: RawServer;
  let polls = 0;
  before(async () => {
    raw = await startRawServer((req, res, base) => {
      const route = req.path.split('/')[1] ?? '';
      if (req.method === 'GET') {
        if (!req.path.endsWith('/.well-known/agent-card.json')) return sendJson(res, {}, 404);
        if (route === 'good' || route in ANSWERS || route === 'native-submitted')
          return sendJson(res, vectorCard('agent-card-capabilities-extension', base, `/${route}/rpc`));
        if (route === 'top-level')
          return sendJson(res, vectorCard('agent-card-top-level-extension-invalid', base, '/top-level/rpc'));
        if (route === 'skill-name')
          return sendJson(res, vectorCard('agent-card-skill-name-not-id-invalid', base, '/skill-name/rpc'));
        if (route === 'params') {
          const card = v1Card(base, '/params/rpc');
          card['capabilities'] = {
            extensions: [{ uri: PROFILE_URI, required: true, params: { adcp_version: '3.1' } }],
          };
          return sendJson(res, card);
        }
        if (route === 'v03' || route === 'v03-no-handle')
          return sendJson(res, { name: 'v03', url: `${base}/${route}/rpc`, protocolVersion: '0.3.0', skills: [] });
        return sendJson(res, {}, 404);
      }
      const id = req.body?.id;
      const answer = (result: unknown) => sendJson(res, { jsonrpc: '2.0', id, result });
      if (route === 'v03') return answer(v03Task({ status: 'completed', products: [] }));
      if (route === 'v03-no-handle') return answer(v03Task({ status: 'submitted', message: 'queued' }));
      if (route in ANSWERS) return answer(vector('response_vectors', ANSWERS[route] as string)['response']);
      if (route === 'native-submitted') {
        const task = structuredClone(
          (vector('response_vectors', 'submitted-inside-completed-a2a-task')['response'] as Json)['task'],
        ) as Json;
        task['status'] = { state: 'TASK_STATE_SUBMITTED' };
        return answer({ task });
      }
      // good: get_task_status answers working once, then the vector's completed poll.
      const { skill } = invocation(req);
      if (skill === 'get_task_status') {
        polls++;
        if (polls === 1) {
          return answer({
            task: {
              id: `a2a-poll-${polls}`,
              contextId: 'c',
              status: { state: 'TASK_STATE_COMPLETED' },
              artifacts: [
                {
                  artifactId: 'r',
                  parts: [{ data: { task_id: 'adcp-task-9a21', task_type: 'create_media_buy', status: 'working' } }],
                },
              ],
            },
          });
        }
        return answer(vector('response_vectors', 'completed-get-task-status-result')['response']);
      }
      return answer(vector('response_vectors', 'submitted-inside-completed-a2a-task')['response']);
    });
  });
  after(() => raw.close());

  const client = (route: string, extra: Partial<ConstructorParameters<typeof AdcpClient>[0]> = {}) =>
    new AdcpClient({ url: `${raw.base}/${route}`, protocol: 'a2a', timeoutMs: 20_000, ...extra });

  const rejectsWithRule = (promise: Promise<unknown>, rule: string) =>
    assert.rejects(promise, (e: unknown) => {
      assert.ok(e instanceof AdcpWireError, `not an AdcpWireError: ${String(e)}`);
      assert.equal(e.code, 'profile_violation');
      assert.equal(e.rule, rule);
      assert.ok(e.message.includes(rule), e.message);
      return true;
    });

  for (const [route, rule] of [
    ['top-level', 'extension_not_under_capabilities'],
    ['skill-name', 'missing_get_adcp_capabilities_skill_id'],
    ['params', 'extension_params_not_empty'],
  ] as const) {
    it(`reports a ${rule} card as a typed discovery result and refuses calls with that rule`, async () => {
      const c = client(route);
      try {
        const found = await c.discover();
        const profile = found.card.a2aProfile;
        assert.equal(profile?.ok, false);
        assert.equal(profile !== undefined && !profile.ok ? profile.code : undefined, rule);
        assert.match(found.capabilitiesProblem ?? '', new RegExp(rule));
        const before = raw.requests.filter((r) => r.method === 'POST' && r.path.startsWith(`/${route}/`)).length;
        await rejectsWithRule(c.call('get_products', { buying_mode: 'brief', brief: 'x' }), rule);
        const after = raw.requests.filter((r) => r.method === 'POST' && r.path.startsWith(`/${route}/`)).length;
        assert.equal(after, before, 'a request went to the interface of a card that breaks the profile');
      } finally {
        await c.close();
      }
    });
  }

  it('reports a conformant card as such at discovery', async () => {
    const c = client('good');
    try {
      const found = await c.discover();
      assert.deepEqual(found.card.a2aProfile, {
        ok: true,
        required: true,
        skillIds: ['get_adcp_capabilities', 'get_task_status'],
      });
    } finally {
      await c.close();
    }
  });

  it('refuses a bare-Task SendMessage answer (invalid_send_message_response)', async () => {
    const c = client('bare');
    try {
      await rejectsWithRule(
        c.call('get_products', { buying_mode: 'brief', brief: 'x' }),
        'invalid_send_message_response',
      );
    } finally {
      await c.close();
    }
  });

  it('refuses an AdCP task_id copied into artifact metadata (adcp_task_id_metadata_duplication)', async () => {
    const c = client('duplicated');
    try {
      await rejectsWithRule(c.call('create_media_buy', {}), 'adcp_task_id_metadata_duplication');
    } finally {
      await c.close();
    }
  });

  it('refuses AdCP Submitted work in a native A2A submitted Task (submitted_handler_return_not_a2a_completed)', async () => {
    const c = client('native-submitted');
    try {
      await rejectsWithRule(c.call('create_media_buy', {}), 'submitted_handler_return_not_a2a_completed');
    } finally {
      await c.close();
    }
  });

  it('sends every request activated, and follows Submitted work with fresh get_task_status invocations', async () => {
    const c = client('good');
    try {
      const submitted = await c.call('create_media_buy', {});
      assert.equal(submitted.status, 'submitted');
      assert.equal(submitted.taskId, 'adcp-task-9a21');
      assert.equal(submitted.transportTaskId, 'a2a-task-create-42');
      const final = await c.waitFor(submitted, { pollIntervalMs: 10, timeoutMs: 20_000 });
      assert.equal(final.status, 'completed');
      assert.equal(final.data?.['media_buy_id'], 'mb_12345');
      const posts = raw.requests.filter((r) => r.method === 'POST' && r.path === '/good/rpc');
      assert.ok(posts.length >= 3, `only ${posts.length} requests`);
      for (const post of posts) {
        assert.equal(post.body?.method, 'SendMessage', 'polled the A2A task instead of invoking get_task_status');
        assert.equal(post.headers['a2a-version'], '1.0');
        assert.equal(post.headers['a2a-extensions'], PROFILE_URI);
        const message = messageOf(post);
        assert.equal(message['role'], 'ROLE_USER');
        assert.equal(typeof message['messageId'], 'string');
        assert.equal((message['parts'] as Json[]).length, 1);
      }
      const pollMessages = posts.filter((p) => invocation(p).skill === 'get_task_status');
      assert.equal(pollMessages.length, 2);
      const expected = (vector('invocation_vectors', 'get-task-status-poll')['message'] as Json)['parts'] as Json[];
      for (const poll of pollMessages) {
        // The vector's message, plus the release every call carries (issue 32 item 12).
        const [part] = messageOf(poll)['parts'] as Json[];
        const data = part!['data'] as Json;
        const { adcp_version, adcp_major_version, ...input } = data['input'] as Json;
        assert.equal(adcp_version, '3.1');
        assert.equal(adcp_major_version, 3);
        assert.deepEqual([{ data: { ...data, input } }], expected);
      }
      const ids = new Set(posts.map((p) => messageOf(p)['messageId']));
      assert.equal(ids.size, posts.length, 'a messageId was reused');
    } finally {
      await c.close();
    }
  });

  it('keeps a v0.3 agent that does not claim the profile working', async () => {
    const c = client('v03');
    try {
      const found = await c.discover();
      assert.equal(found.card.a2aProfile?.ok, false);
      const result = await c.call('get_products', { buying_mode: 'brief', brief: 'x' });
      assert.equal(result.status, 'completed');
      assert.deepEqual(result.data?.['products'], []);
    } finally {
      await c.close();
    }
  });

  it('never polls an ended A2A task for AdCP work that came without a task_id', async () => {
    const c = client('v03-no-handle');
    try {
      const submitted = await c.call('create_media_buy', {});
      assert.equal(submitted.status, 'submitted');
      assert.equal(submitted.taskId, undefined);
      await assert.rejects(c.waitFor(submitted, { pollIntervalMs: 10, timeoutMs: 2_000 }), (e: unknown) => {
        assert.ok(e instanceof AdcpWireError);
        assert.equal(e.code, 'protocol');
        assert.match(e.message, /without a task_id to poll with get_task_status/);
        return true;
      });
      const methods = raw.requests.filter((r) => r.path === '/v03-no-handle/rpc').map((r) => r.body?.method);
      assert.deepEqual(methods, ['message/send']);
    } finally {
      await c.close();
    }
  });
});
