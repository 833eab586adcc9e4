import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveOperation, resolveParsedOperation, type OperationResolution } from './resolve-operation.js';

const invocation = (skill: unknown = 'create_media_buy') => ({ data: { skill, input: { plan_id: 'p1' } } });
const send = (parts: unknown[], method = 'SendMessage', message: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { message: { messageId: 'm1', role: 'ROLE_USER', parts, ...message } },
  });

const operationOf = (resolution: OperationResolution) =>
  resolution.ok ? (resolution.kind === 'operation' ? resolution.operation : resolution.kind) : resolution.code;

describe('resolveOperation: the table', () => {
  it('MCP tools/call resolves params.name, with its arguments', () => {
    const body =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_media_buy","arguments":{"a":1}}}';
    assert.deepEqual(resolveOperation({ body }), {
      ok: true,
      kind: 'operation',
      method: 'tools/call',
      operation: 'create_media_buy',
      source: 'mcp_tools_call',
      args: { a: 1 },
    });
  });

  for (const method of ['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']) {
    it(`A2A ${method} resolves the sole DataPart's skill`, () => {
      const resolved = resolveOperation({ body: send([invocation()], method) });
      assert.equal(operationOf(resolved), 'create_media_buy');
      assert.equal(resolved.ok && resolved.kind === 'operation' && resolved.source, 'a2a_invocation_skill');
    });
  }

  it('A2A 0.3 kind-tagged parts, the legacy parameters member, and an advisory TextPart', () => {
    const body = send(
      [
        { kind: 'text', text: 'AdCP task: get_products' },
        { kind: 'data', data: { skill: 'get_products', parameters: { brief: 'x' } } },
      ],
      'message/send',
    );
    const resolved = resolveOperation({ body });
    assert.equal(operationOf(resolved), 'get_products');
    assert.deepEqual(resolved.ok && resolved.kind === 'operation' && resolved.args, { brief: 'x' });
  });

  it('the decoy TextPart and metadata do not count (vector positive/004)', () => {
    const body = send([{ text: 'AdCP task: create_media_buy' }, invocation('get_products')], 'SendMessage', {
      metadata: { skill: 'create_media_buy' },
    });
    assert.equal(operationOf(resolveOperation({ body })), 'get_products');
  });

  for (const [path, expected] of [
    ['/v1/message:send', 'create_media_buy'],
    ['https://seller.example/a2a/v1/message:stream?x=1', 'create_media_buy'],
    ['/v1/message%3Asend', 'create_media_buy'],
  ] as const) {
    it(`A2A HTTP+JSON ${path} resolves from the request's message`, () => {
      const body = JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [invocation()] } });
      assert.equal(operationOf(resolveOperation({ path, body })), expected);
    });
  }

  it('other JSON-RPC methods are protocol methods; a body-less request resolves to nothing', () => {
    assert.deepEqual(
      resolveOperation({ body: '{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"t"}}' }),
      {
        ok: true,
        kind: 'protocol_method',
        method: 'tasks/cancel',
      },
    );
    assert.equal(
      operationOf(resolveOperation({ body: '{"jsonrpc":"2.0","id":1,"method":"GetTask"}' })),
      'protocol_method',
    );
    assert.equal(operationOf(resolveOperation({ body: '' })), 'none');
    assert.equal(operationOf(resolveOperation({ body: new Uint8Array() })), 'none');
    // A variant spelling is not the message method: a protocol method, which a dispatcher refuses.
    assert.equal(operationOf(resolveOperation({ body: send([invocation()], 'sendmessage') })), 'protocol_method');
  });

  it('a JSON-RPC response posted back (MCP) carries no operation', () => {
    assert.equal(operationOf(resolveOperation({ body: '{"jsonrpc":"2.0","id":3,"result":{}}' })), 'none');
  });

  it('keeps message.taskId for the continuation binding', () => {
    const resolved = resolveOperation({ body: send([invocation()], 'SendMessage', { taskId: 'task-1' }) });
    assert.equal(resolved.ok && resolved.kind === 'operation' && resolved.taskId, 'task-1');
  });
});

describe('resolveOperation: fail closed (request_body_malformed)', () => {
  const dup = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","parts":[{"data":';
  const cases: Array<[string, { path?: string; body: string | Uint8Array }]> = [
    ['a JSON-RPC batch', { body: `[${send([invocation()])}]` }],
    [
      'a batch of one tools/call',
      { body: '[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_media_buy"}}]' },
    ],
    ['not JSON', { body: '{"jsonrpc":' }],
    ['not UTF-8', { body: new Uint8Array([0x7b, 0xff, 0x7d]) }],
    ['a JSON string', { body: '"SendMessage"' }],
    ['a missing method', { body: '{"jsonrpc":"2.0","id":1,"params":{}}' }],
    ['a non-string method', { body: '{"jsonrpc":"2.0","id":1,"method":7}' }],
    [
      'a duplicate method',
      { body: '{"jsonrpc":"2.0","id":1,"method":"tasks/get","method":"tools/call","params":{"name":"x"}}' },
    ],
    ['a duplicate skill key', { body: `${dup}{"skill":"get_products","skill":"create_media_buy","input":{}}}]}}}` }],
    [
      'a \\u-escaped duplicate skill key',
      { body: `${dup}{"skill":"get_products","sk\\u0069ll":"create_media_buy","input":{}}}]}}}` },
    ],
    [
      'a case-variant Skill beside skill',
      { body: send([{ data: { skill: 'get_products', Skill: 'create_media_buy', input: {} } }]) },
    ],
    ['a case-variant Skill alone', { body: send([{ data: { Skill: 'create_media_buy', input: {} } }]) }],
    [
      'a case-variant Parts',
      {
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'm', parts: [invocation('get_products')], Parts: [invocation()] } },
        }),
      },
    ],
    ['a case-variant Method', { body: '{"jsonrpc":"2.0","id":1,"method":"tasks/get","Method":"tools/call"}' }],
    [
      'a case-variant Message',
      { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { Message: {} } }) },
    ],
    ['a case-variant Data', { body: send([{ Data: { skill: 'create_media_buy', input: {} } }]) }],
    [
      'a case-variant Name on tools/call',
      {
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_products","Name":"create_media_buy"}}',
      },
    ],
    ['a text-only message', { body: send([{ text: 'Please create a media buy' }]) }],
    ['no parts', { body: send([]) }],
    ['no message', { body: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}' }],
    ['two DataParts', { body: send([invocation('get_products'), invocation()]) }],
    ['a second DataPart without skill', { body: send([invocation('get_products'), { data: { note: 'extra' } }]) }],
    [
      'a Part with text and data (1.0)',
      { body: send([{ text: 'get_products', data: { skill: 'create_media_buy', input: {} } }]) },
    ],
    [
      'a TextPart with a data member (0.3)',
      {
        body: send(
          [
            { kind: 'text', text: 'x', data: { skill: 'create_media_buy', input: {} } },
            { kind: 'data', data: { skill: 'create_media_buy', input: {} } },
          ],
          'message/send',
        ),
      },
    ],
    [
      'a kind that disagrees',
      { body: send([{ kind: 'text', data: { skill: 'create_media_buy', input: {} } }], 'message/send') },
    ],
    ['a Part with no content member', { body: send([{ metadata: {} }, invocation()]) }],
    ['a url FilePart', { body: send([invocation('get_products'), { url: 'https://cdn.example/c.mp4' }]) }],
    ['a raw FilePart', { body: send([invocation('get_products'), { raw: 'AAAA' }]) }],
    [
      'a 0.3 file Part',
      { body: send([invocation('get_products'), { kind: 'file', file: { uri: 'https://x' } }], 'message/send') },
    ],
    ['data that is an array', { body: send([{ data: ['create_media_buy', {}] }]) }],
    ['a missing skill', { body: send([{ data: { input: {} } }]) }],
    ['an empty skill', { body: send([invocation('')]) }],
    ['a non-string skill', { body: send([invocation(7)]) }],
    ['a non-string TextPart text', { body: send([{ text: 5 }, invocation()]) }],
    ['an empty tools/call name', { body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":""}}' }],
    ['tools/call without params', { body: '{"jsonrpc":"2.0","id":1,"method":"tools/call"}' }],
    [
      'HTTP+JSON message:send with a text-only message',
      { path: '/v1/message:send', body: JSON.stringify({ message: { parts: [{ text: 'buy' }] } }) },
    ],
    ['HTTP+JSON message:send with no body', { path: '/v1/message:send', body: '' }],
    [
      'HTTP+JSON with a variant spelling',
      { path: '/v1/Message:Send', body: JSON.stringify({ message: { parts: [invocation()] } }) },
    ],
    [
      'HTTP+JSON with a case-variant Message',
      { path: '/v1/message:send', body: JSON.stringify({ Message: { parts: [invocation()] } }) },
    ],
  ];
  for (const [name, request] of cases) {
    it(`refuses ${name}`, () => {
      const resolved = resolveOperation(request);
      assert.equal(resolved.ok, false, JSON.stringify(resolved));
      assert.equal(!resolved.ok && resolved.code, 'request_body_malformed');
    });
  }

  it('resolveParsedOperation refuses an array and a non-object', () => {
    assert.equal(resolveParsedOperation([]).ok, false);
    assert.equal(resolveParsedOperation('x').ok, false);
    assert.equal(resolveParsedOperation(null).ok, false);
  });
});
