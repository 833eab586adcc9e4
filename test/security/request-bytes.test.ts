// Issue 10, item 17: invalid UTF-8 is refused, not replaced; an oversized Content-Length is refused
// from the header, before any body byte is read.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { testTools } from '../server/fixtures.js';
import { mcpPost, openMcpSession, rawPost, rpcMessage } from './raw-http.js';
import type { Json } from './raw-http.js';

const withBadByte = (before: string, after: string) =>
  Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(after, 'utf8')]);

/**
 * Sends only the headers of a POST declaring a 1 GiB body, and returns what the server wrote
 * before it hung up; fails if it keeps the connection open (reading or waiting for the body).
 */
async function declareHugeBody(base: string, path: string, headers = '', host?: string): Promise<string> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  try {
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${host ?? url.host}\r\ncontent-type: application/json\r\n${headers}` +
        `accept: application/json, text/event-stream\r\ncontent-length: ${1024 * 1024 * 1024}\r\n\r\n`,
    );
    const deadline = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 3_000).unref());
    assert.notEqual(await Promise.race([closed, deadline]), 'timeout', `still open after: ${received.slice(0, 80)}`);
    assert.match(received, /connection: close/i);
    return received;
  } finally {
    socket.destroy();
  }
}

describe('createAdcpServer request bytes', () => {
  const server = createAdcpServer({ tools: testTools(), maxBodyBytes: 64 * 1024 });
  let listening: ListeningAdcpServer;
  before(async () => {
    listening = await server.listen();
  });
  after(() => server.close());

  it('refuses invalid UTF-8 over A2A with a parse error instead of reading U+FFFD', async () => {
    const body = withBadByte('{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"', '"}}');
    const answer = await rawPost(listening.a2aUrl, { body });
    assert.equal(answer.status, 400);
    const error = rpcMessage(answer).error as Json;
    assert.equal(error.code, -32700);
    assert.match(String(error.message), /UTF-8/);
  });

  it('refuses invalid UTF-8 over MCP (two different invalid keys would collide as U+FFFD)', async () => {
    const session = await openMcpSession(listening.mcpUrl);
    const body = withBadByte(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_products","arguments":{"brief":"',
      '"}}}',
    );
    const answer = await mcpPost(listening.mcpUrl, session, body);
    assert.equal(answer.status, 400);
    assert.equal((rpcMessage(answer).error as Json).code, -32700);
  });

  it('still reads valid multi-byte UTF-8', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"caf\u00e9-\u{1f600}"}}';
    const message = rpcMessage(await rawPost(listening.a2aUrl, { body }));
    assert.notEqual((message.error as Json | undefined)?.code, -32700);
  });

  for (const path of ['/mcp', '/a2a']) {
    it(`refuses a declared Content-Length over the cap on ${path} from the header, before any body byte`, async () => {
      assert.match(await declareHugeBody(listening.url, path), /^HTTP\/1\.1 413 /);
    });
  }
});

describe('createAdcpServer refusals before the body', () => {
  const server = createAdcpServer({
    tools: testTools(),
    authenticate: (req) => (req.headers.authorization === 'Bearer good' ? 'buyer' : null),
  });
  let listening: ListeningAdcpServer;
  before(async () => {
    listening = await server.listen();
  });
  after(() => server.close());

  it('answers 401 to a huge declared body without reading it, and hangs up', async () => {
    assert.match(await declareHugeBody(listening.url, '/a2a', 'authorization: Bearer bad\r\n'), /^HTTP\/1\.1 401 /);
  });

  it('answers 404 to a huge declared body without reading it, and hangs up', async () => {
    assert.match(await declareHugeBody(listening.url, '/nowhere'), /^HTTP\/1\.1 404 /);
  });

  it('answers 403 to a foreign Host with a huge declared body without reading it, and hangs up', async () => {
    const answer = await declareHugeBody(listening.url, '/a2a', '', 'attacker.example');
    assert.match(answer, /^HTTP\/1\.1 403 /);
  });
});
