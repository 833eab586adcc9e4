import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseSse } from './parse-sse.js';

async function collect(...chunks: string[]): Promise<string[]> {
  const encoder = new TextEncoder();
  async function* source(): AsyncGenerator<Uint8Array> {
    for (const c of chunks) yield encoder.encode(c);
  }
  const out: string[] = [];
  for await (const data of parseSse(source())) out.push(data);
  return out;
}

describe('parseSse', () => {
  it('yields the data of each event', async () => {
    assert.deepEqual(await collect('data: {"a":1}\n\ndata: {"b":2}\n\n'), ['{"a":1}', '{"b":2}']);
  });

  it('joins several data lines with a line feed', async () => {
    assert.deepEqual(await collect('data: one\ndata: two\n\n'), ['one\ntwo']);
  });

  it('handles CRLF split across chunks', async () => {
    assert.deepEqual(await collect('data: x\r', '\n\r', '\ndata: y\r\n\r\n'), ['x', 'y']);
  });

  it('handles a multi-byte character split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: é\n\n');
    async function* source(): AsyncGenerator<Uint8Array> {
      yield bytes.slice(0, 7);
      yield bytes.slice(7);
    }
    const out: string[] = [];
    for await (const d of parseSse(source())) out.push(d);
    assert.deepEqual(out, ['é']);
  });

  it('ignores comments, other fields and events without data', async () => {
    assert.deepEqual(await collect(': keep-alive\n\nevent: ping\nid: 3\n\nretry: 10\ndata:z\n\n'), ['z']);
  });

  it('strips a leading byte order mark', async () => {
    assert.deepEqual(await collect('\ufeffdata: a\n\n'), ['a']);
  });

  it('keeps a last event the server closed without a blank line', async () => {
    assert.deepEqual(await collect('data: a\n\ndata: last'), ['a', 'last']);
  });
});
