// Issue 32 item 10: a typed seller's handler compiles yet answers what the schema refuses. Its
// answers are checked by default while developing (a process warning naming the tool), and not
// when NODE_ENV=production (decision 0169). Real server, real client, in memory.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { adcpTool, createAdcpServer } from '../../src/server/index.js';
import { AdcpClient, createInMemoryTransport } from '../../src/client/index.js';
import { defaultResponseValidation } from '../../src/server/tools/adcp-serving.js';

/** Compiles, yet answers a cache_scope the schema does not allow (a value from a database the types cannot see). */
const tool = adcpTool({
  name: 'get_products',
  description: 'Products.',
  handler: async () => ({ products: [], cache_scope: 'nobody' as 'public' }),
});

async function warningsOf(run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listen = (w: Error) => {
    if (w.name === 'AdcpResponseWarning') seen.push(w.message);
  };
  process.on('warning', listen);
  try {
    await run();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on next tick
  } finally {
    process.off('warning', listen);
  }
  return seen;
}

async function callOnce(server: ReturnType<typeof createAdcpServer>): Promise<void> {
  const client = new AdcpClient({ transport: createInMemoryTransport(server, { protocol: 'mcp' }) });
  try {
    const result = await client.call('get_products', { buying_mode: 'brief', brief: 'pets' });
    assert.equal(result.status, 'completed', 'warn keeps the answer');
  } finally {
    await client.close();
  }
}

describe('createAdcpServer checks its answers by default while developing', () => {
  it('defaults to warn, and to off when NODE_ENV is production', () => {
    assert.equal(defaultResponseValidation({}), 'warn');
    assert.equal(defaultResponseValidation({ NODE_ENV: 'development' }), 'warn');
    assert.equal(defaultResponseValidation({ NODE_ENV: 'production' }), 'off');
  });

  it('warns about an answer the schema refuses, naming the tool', async () => {
    const server = createAdcpServer({ tools: [tool] });
    try {
      const seen = await warningsOf(() => callOnce(server));
      assert.equal(seen.length, 1, seen.join('\n'));
      assert.match(seen[0] ?? '', /^get_products answered with a body that does not match AdCP 3\.1/);
    } finally {
      await server.close();
    }
  });

  it('says nothing with validateResponses: off', async () => {
    const server = createAdcpServer({ tools: [tool], validateResponses: 'off' });
    try {
      assert.deepEqual(await warningsOf(() => callOnce(server)), []);
    } finally {
      await server.close();
    }
  });
});
