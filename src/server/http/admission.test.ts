// Each admission stage alone, on real IncomingMessage objects (headers from raw lines, bodies
// pushed into the stream), a real request-signing verifier and real bearer auth.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { join } from 'node:path';
import {
  ABANDONED,
  ADMISSION_STAGES,
  admissionRequest,
  admit,
  anonymousPolicy,
  endpoint,
  hostAndOrigin,
  identifyCaller,
  mediaType,
  operation,
  parseStrict,
  principalRequired,
  probes,
  publicDocuments,
  readBodyCapped,
  refuseUnidentified,
  signature,
  type AdmissionConfig,
  type AdmissionRequest,
} from './admission.js';
import type { Answer } from './answer.js';
import { createReadiness } from './readiness.js';
import { createRequestAuth } from '../auth/request-auth.js';
import { createRequestSigningVerifier } from '../auth/request-signing.js';
import { signRequest } from '../../signing/sign-request.js';
import type { Jwk } from '../../signing/jwks.js';

const HOST = '127.0.0.1:4000';
const TOKEN = 'admission-test-token-0123456789abcdef';
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const jwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: 'buyer-1',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const call = (tool: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } });

/** A received request: header lines (repeats kept, as node keeps them), and a body when given. */
function incoming(method: string, path: string, headers: Array<[string, string]> = [], body?: string): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.url = path;
  setHeaders(req, [['host', HOST], ...headers]);
  if (body !== undefined) req.push(body);
  req.push(null);
  return req;
}

/** What node's parser sets: `headers` (the first line of a repeated field) and `headersDistinct`. */
function setHeaders(req: IncomingMessage, lines: Array<[string, string]>): void {
  const distinct: Record<string, string[]> = {};
  for (const [name, value] of lines) (distinct[name.toLowerCase()] ??= []).push(value);
  req.rawHeaders = lines.flat();
  req.headersDistinct = distinct;
  req.headers = Object.fromEntries(Object.entries(distinct).map(([name, values]) => [name, values[0]]));
}

function signedHeaders(body: string, path = '/mcp'): Array<[string, string]> {
  const signed = signRequest({ method: 'POST', url: `http://${HOST}${path}`, body }, { keyid: 'buyer-1', privateKey });
  return [['content-type', 'application/json'], ...Object.entries(signed)];
}

function config(overrides: Partial<AdmissionConfig> = {}): AdmissionConfig {
  return {
    readiness: createReadiness({ stores: [], timeoutMs: 1_000, cacheMs: 0 }),
    hostRule: () => ({ allowed: undefined }),
    publicDocument: () => undefined,
    requestAuth: undefined,
    authenticate: undefined,
    signing: undefined,
    originOf: () => `http://${HOST}`,
    maxBodyBytes: 1024,
    maxJsonDepth: 8,
    ...overrides,
  };
}

const signing = () => createRequestSigningVerifier({ jwks: [jwk] });
const bearer = () => createRequestAuth({ tokens: { [TOKEN]: 'alice' } }, '3.1');

/** A request that the stages before `upTo` (by name) let through, as `admit` would hand it on. */
async function through(req: IncomingMessage, cfg: AdmissionConfig, upTo: string): Promise<AdmissionRequest> {
  const request = admissionRequest(req, new URL(req.url ?? '/', 'http://x').pathname);
  const index = ADMISSION_STAGES.findIndex((stage) => stage.name === upTo);
  assert.ok(index >= 0, upTo);
  const verdict = await admit(request, cfg, ADMISSION_STAGES.slice(0, index));
  assert.ok(typeof verdict === 'object' && !('status' in verdict), `let through before ${upTo}`);
  return request;
}

function answer(verdict: unknown): Answer {
  assert.ok(typeof verdict === 'object' && verdict !== null && 'status' in verdict, 'an answer');
  return verdict as Answer;
}

describe('admission: the stages, in order', () => {
  it('runs these stages in this order, as docs/architecture.md lists them', () => {
    const names = ADMISSION_STAGES.map((stage) => stage.name);
    assert.deepEqual(names, [
      'probes',
      'hostAndOrigin',
      'publicDocuments',
      'endpoint',
      'mediaType',
      'identifyCaller',
      'refuseUnidentified',
      'readBodyCapped',
      'parseStrict',
      'operation',
      'signature',
      'anonymousPolicy',
      'principalRequired',
    ]);
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/architecture.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Admission pipeline'));
    const listed = [...section.matchAll(/^\d+\. \*\*`([A-Za-z]+)`\*\*/gm)].map((match) => match[1]);
    assert.deepEqual(listed, names);
  });

  it('admits a request every stage let through, with what they established', async () => {
    const body = call('get_products');
    const admitted = await admit(
      admissionRequest(incoming('POST', '/mcp', [['content-type', 'application/json']], body), '/mcp'),
      config(),
    );
    assert.ok(typeof admitted === 'object' && 'principal' in admitted);
    assert.equal(admitted.endpoint, 'mcp');
    assert.equal(admitted.principal, 'anonymous@unknown');
    assert.deepEqual(admitted.body, JSON.parse(body));
    assert.ok(admitted.resolution.ok && admitted.resolution.kind === 'operation');
    assert.equal(admitted.resolution.operation, 'get_products');
  });
});

describe('admission: probes', () => {
  it('answers /healthz and /readyz before anything else, and nothing else', async () => {
    const request = admissionRequest(incoming('GET', '/healthz'), '/healthz');
    const health = answer(await probes(request, config()));
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });
    const post = answer(
      await probes(admissionRequest(incoming('POST', '/readyz', [['content-length', '2']], '{}'), '/readyz'), config()),
    );
    assert.equal(post.status, 405);
    assert.equal(post.connection, 'close-if-unread');
    assert.equal(await probes(admissionRequest(incoming('GET', '/mcp'), '/mcp'), config()), undefined);
  });
});

describe('admission: hostAndOrigin', () => {
  const loopback = config({
    hostRule: () => ({ allowed: new Set(['127.0.0.1', 'localhost', '::1']), loopbackPort: 4000 }),
  });
  const check = (headers: Array<[string, string]>, host = HOST) => {
    const req = incoming('GET', '/mcp');
    setHeaders(req, [['host', host], ...headers]);
    return hostAndOrigin(admissionRequest(req, '/mcp'), loopback);
  };
  it('refuses a foreign Host, another loopback port and a foreign Origin (403, body unread)', () => {
    assert.deepEqual(check([], 'evil.example'), {
      status: 403,
      body: { error: 'Host not allowed' },
      connection: 'close-if-unread',
    });
    assert.equal(answer(check([], '127.0.0.1:4001')).status, 403);
    assert.deepEqual(answer(check([['origin', 'http://evil.example']])).body, { error: 'Origin not allowed' });
  });
  it('lets this server through, and every host when no rule is set', () => {
    assert.equal(check([['origin', 'http://localhost:4000']]), undefined);
    assert.equal(hostAndOrigin(admissionRequest(incoming('GET', '/mcp'), '/mcp'), config()), undefined);
  });
});

describe('admission: publicDocuments', () => {
  const cfg = config({
    publicDocument: (_req, path) => (path === '/.well-known/mcp.json' ? { name: 'x' } : undefined),
  });
  it('serves a public document to a GET only', () => {
    const path = '/.well-known/mcp.json';
    assert.deepEqual(publicDocuments(admissionRequest(incoming('GET', path), path), cfg), {
      status: 200,
      body: { name: 'x' },
    });
    assert.equal(publicDocuments(admissionRequest(incoming('POST', path), path), cfg), undefined);
    assert.equal(publicDocuments(admissionRequest(incoming('GET', '/mcp'), '/mcp'), cfg), undefined);
  });
});

describe('admission: endpoint', () => {
  it('names the endpoint of /mcp, /a2a and /a2a/legacy; 404 for anything else', () => {
    for (const [path, name] of [
      ['/mcp', 'mcp'],
      ['/a2a', 'a2a'],
      ['/a2a/legacy', 'a2aLegacy'],
    ] as const) {
      const request = admissionRequest(incoming('POST', path), path);
      assert.equal(endpoint(request), undefined);
      assert.equal(request.endpoint, name);
    }
    assert.deepEqual(endpoint(admissionRequest(incoming('POST', '/mcp/'), '/mcp/')), {
      status: 404,
      body: { error: 'Not found' },
      connection: 'close-if-unread',
    });
  });
});

describe('admission: mediaType', () => {
  const post = (type: string) => admissionRequest(incoming('POST', '/mcp', [['content-type', type]]), '/mcp');
  it('takes application/json (charset utf-8 at most) and refuses anything else with 415', async () => {
    assert.equal(await mediaType(post('application/json; charset=utf-8'), config()), undefined);
    const refused = answer(await mediaType(post('text/plain'), config()));
    assert.equal(refused.status, 415);
    assert.equal(refused.connection, 'close-if-unread');
    assert.equal(await mediaType(admissionRequest(incoming('GET', '/mcp'), '/mcp'), config()), undefined);
  });
  it('answers a signed request with two Content-Type values as a malformed signature (vector 022)', async () => {
    const body = call('get_products');
    const headers = signedHeaders(body).map(([name, value]): [string, string] =>
      name === 'content-type' ? [name, 'application/json, text/plain'] : [name, value],
    );
    const request = admissionRequest(incoming('POST', '/mcp', headers, body), '/mcp');
    const refused = answer(await mediaType(request, config({ signing: signing() })));
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.body, { error: 'request_signature_header_malformed' });
    assert.equal(answer(await mediaType(request, config())).status, 415, 'without signing: the media type');
  });
});

describe('admission: identifyCaller and refuseUnidentified', () => {
  it('with auth: a valid token names its principal, a bad one is refused before the body, none is anonymous', async () => {
    const cfg = config({ requestAuth: bearer() });
    const good = admissionRequest(incoming('POST', '/mcp', [['authorization', `Bearer ${TOKEN}`]]), '/mcp');
    assert.equal(await identifyCaller(good, cfg), undefined);
    assert.deepEqual([good.principal, good.authenticated], ['alice', true]);
    const bad = answer(
      await identifyCaller(
        admissionRequest(incoming('POST', '/mcp', [['authorization', `Bearer ${TOKEN}x`]]), '/mcp'),
        cfg,
      ),
    );
    assert.equal(bad.status, 401);
    assert.match(bad.headers?.['www-authenticate'] ?? '', /^Bearer .*invalid_token/);
    assert.equal(bad.connection, 'close-if-unread');
    const none = admissionRequest(incoming('POST', '/mcp'), '/mcp');
    assert.equal(await identifyCaller(none, cfg), undefined);
    assert.deepEqual([none.principal, none.authenticated], ['anonymous@unknown', false]);
  });
  it('with authenticate: its answer, and a throw refuses as null does', async () => {
    for (const [hook, principal] of [
      [() => 'bob', 'bob'],
      [() => null, null],
      [
        () => {
          throw new Error('down');
        },
        null,
      ],
    ] as const) {
      const request = admissionRequest(incoming('POST', '/mcp'), '/mcp');
      assert.equal(await identifyCaller(request, config({ authenticate: hook })), undefined);
      assert.deepEqual([request.principal, request.authenticated], [principal, principal !== null]);
    }
  });
  it('refuses a caller authenticate said no to, unless a signature may still name one', () => {
    const unsigned = admissionRequest(incoming('POST', '/mcp'), '/mcp');
    assert.deepEqual(refuseUnidentified(unsigned, config()), {
      status: 401,
      headers: { 'www-authenticate': 'Bearer' },
      body: { error: 'Unauthorized' },
      connection: 'close-if-unread',
    });
    const signed = admissionRequest(incoming('POST', '/mcp', signedHeaders('{}')), '/mcp');
    assert.equal(refuseUnidentified(signed, config({ signing: signing() })), undefined);
    assert.equal(answer(refuseUnidentified(signed, config())).status, 401, 'no verifier: a signature names no one');
    unsigned.principal = 'bob';
    assert.equal(refuseUnidentified(unsigned, config()), undefined);
  });
});

describe('admission: readBodyCapped', () => {
  const read = (req: IncomingMessage, path = '/mcp') => {
    const request = admissionRequest(req, path);
    request.endpoint = path === '/mcp' ? 'mcp' : 'a2a';
    return readBodyCapped(request, config()).then((verdict) => ({ verdict, request }));
  };
  it('reads a POST body within the cap', async () => {
    const { verdict, request } = await read(incoming('POST', '/mcp', [], '{"a":1}'));
    assert.equal(verdict, undefined);
    assert.equal(request.text, '{"a":1}');
    assert.equal(request.bytes.length, 7);
  });
  it('refuses a body over the cap (413, connection closed), from the declared length too', async () => {
    const declared = answer((await read(incoming('POST', '/mcp', [['content-length', '1025']]))).verdict);
    assert.equal(declared.status, 413);
    assert.equal(declared.connection, 'close');
    assert.equal(answer((await read(incoming('POST', '/mcp', [], 'x'.repeat(1025)))).verdict).status, 413);
  });
  it('refuses bytes that are not UTF-8 (400 -32700), never replaced', async () => {
    const req = new IncomingMessage(new Socket());
    req.method = 'POST';
    setHeaders(req, [['host', HOST]]);
    req.push(Buffer.from([0x7b, 0xff, 0x7d]));
    req.push(null);
    const refused = answer((await read(req)).verdict);
    assert.equal(refused.status, 400);
    assert.deepEqual((refused.body as { error: unknown }).error, {
      code: -32700,
      message: 'Parse error: the body is not well-formed UTF-8',
    });
  });
  it('gives up on a caller that went away mid-body, and A2A takes only POST', async () => {
    const req = new IncomingMessage(new Socket());
    req.method = 'POST';
    setHeaders(req, [['host', HOST]]);
    const pending = read(req);
    req.destroy();
    assert.equal((await pending).verdict, ABANDONED);
    assert.equal(answer((await read(incoming('GET', '/a2a'), '/a2a')).verdict).status, 405);
    assert.equal((await read(incoming('GET', '/mcp'))).verdict, undefined);
  });
});

describe('admission: parseStrict', () => {
  const parse = async (body: string, cfg = config(), headers: Array<[string, string]> = []) => {
    const request = await through(
      incoming('POST', '/mcp', [['content-type', 'application/json'], ...headers], body),
      cfg,
      'parseStrict',
    );
    return { verdict: await parseStrict(request, cfg), request };
  };
  it('parses a well-formed body', async () => {
    const { verdict, request } = await parse('{"a":[1,2]}');
    assert.equal(verdict, undefined);
    assert.deepEqual(request.body, { a: [1, 2] });
  });
  it('refuses a duplicate key (400 -32700) and nesting over maxJsonDepth (400 -32600, INVALID_REQUEST)', async () => {
    const duplicate = answer((await parse('{"a":1,"a":2}')).verdict);
    assert.equal(duplicate.status, 400);
    assert.equal((duplicate.body as { error: { code: number } }).error.code, -32700);
    const deep = answer((await parse('['.repeat(9) + ']'.repeat(9))).verdict);
    assert.equal(deep.status, 400);
    const error = (deep.body as { error: { code: number; data: { adcp_error: { code: string } } } }).error;
    assert.equal(error.code, -32600);
    assert.equal(error.data.adcp_error.code, 'INVALID_REQUEST');
  });
  it('with signing: a duplicate key is request_body_malformed, after a signature on it is verified', async () => {
    const cfg = config({ signing: signing() });
    const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_products","name":"x"}}';
    const unsigned = answer((await parse(body, cfg)).verdict);
    assert.deepEqual([unsigned.status, unsigned.body], [401, { error: 'request_body_malformed' }]);
    const signed = answer((await parse(body, cfg, signedHeaders(body).slice(1))).verdict);
    assert.deepEqual(signed.body, { error: 'request_body_malformed' }, 'a valid signature: then the body');
    const forged = signedHeaders(body)
      .slice(1)
      .map(([name, value]): [string, string] => [
        name,
        name === 'signature' ? value.replace(/:(.)/, (m, c) => `:${c === 'A' ? 'B' : 'A'}`) : value,
      ]);
    assert.deepEqual(answer((await parse(body, cfg, forged)).verdict).body, { error: 'request_signature_invalid' });
  });
});

describe('admission: operation', () => {
  const resolve = async (path: string, body: string, cfg = config()) => {
    const request = await through(
      incoming('POST', path, [['content-type', 'application/json']], body),
      cfg,
      'operation',
    );
    return { verdict: operation(request, cfg), request };
  };
  it('resolves the operation once, for every stage after it', async () => {
    const { verdict, request } = await resolve('/a2a', call('create_media_buy'));
    assert.equal(verdict, undefined);
    assert.ok(request.resolution.ok && request.resolution.kind === 'operation');
    assert.equal(request.resolution.operation, 'create_media_buy');
  });
  it('refuses a batch everywhere and an unresolvable MCP request (400); A2A answers its own', async () => {
    assert.equal(answer((await resolve('/a2a', `[${call('get_products')}]`)).verdict).status, 400);
    assert.equal(answer((await resolve('/mcp', '{"jsonrpc":"2.0","id":1}')).verdict).status, 400);
    assert.equal((await resolve('/a2a', '{"jsonrpc":"2.0","id":1}')).verdict, undefined);
  });
  it('with signing: an unresolvable request is 401 before any signature is read (fail closed)', async () => {
    const refused = answer(
      (await resolve('/a2a', `[${call('get_products')}]`, config({ signing: signing() }))).verdict,
    );
    assert.equal(refused.status, 401);
    assert.equal((refused.body as { error: string }).error, 'request_body_malformed');
    assert.equal(refused.headers?.['www-authenticate'], 'Signature error="request_body_malformed"');
  });
});

describe('admission: signature', () => {
  const verify = async (headers: Array<[string, string]>, body: string, cfg: AdmissionConfig) => {
    const request = await through(incoming('POST', '/mcp', headers, body), cfg, 'signature');
    return { verdict: await signature(request, cfg), request };
  };
  it('a verified signature names the principal signing-key:<keyid>', async () => {
    const body = call('create_media_buy');
    const { verdict, request } = await verify(signedHeaders(body), body, config({ signing: signing() }));
    assert.equal(verdict, undefined);
    assert.deepEqual([request.principal, request.authenticated], ['signing-key:buyer-1', true]);
  });
  it('a body changed after signing is refused with the checklist code', async () => {
    const body = call('create_media_buy');
    const sent = call('get_products');
    const { verdict } = await verify(signedHeaders(body), sent, config({ signing: signing() }));
    const refused = answer(verdict);
    assert.equal(refused.status, 401);
    assert.match(refused.headers?.['www-authenticate'] ?? '', /^Signature error="request_/);
  });
  it('a required operation unsigned is request_signature_required; without signing nothing is checked', async () => {
    const body = call('create_media_buy');
    const cfg = config({ signing: createRequestSigningVerifier({ jwks: [jwk], requiredFor: ['create_media_buy'] }) });
    const headers: Array<[string, string]> = [['content-type', 'application/json']];
    assert.deepEqual(answer((await verify(headers, body, cfg)).verdict).body, { error: 'request_signature_required' });
    assert.equal((await verify(headers, body, config())).verdict, undefined);
  });
});

describe('admission: anonymousPolicy and principalRequired', () => {
  const cfg = config({ requestAuth: bearer() });
  const judge = async (tool: string, headers: Array<[string, string]> = []) => {
    const request = await through(
      incoming('POST', '/mcp', [['content-type', 'application/json'], ...headers], call(tool)),
      cfg,
      'anonymousPolicy',
    );
    return anonymousPolicy(request, cfg);
  };
  it('lets an anonymous caller make only the public calls', async () => {
    assert.equal(await judge('get_products'), undefined);
    const refused = answer(await judge('create_media_buy'));
    assert.equal(refused.status, 401);
    assert.match(refused.headers?.['www-authenticate'] ?? '', /^Bearer/);
    assert.equal(await judge('create_media_buy', [['authorization', `Bearer ${TOKEN}`]]), undefined);
  });
  it('dispatches nothing without a principal', () => {
    const request = admissionRequest(incoming('GET', '/mcp'), '/mcp');
    assert.equal(answer(principalRequired(request)).status, 401);
    request.principal = 'bob';
    assert.equal(principalRequired(request), undefined);
  });
});
