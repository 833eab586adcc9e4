import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient, AdcpVersionError, createInMemoryTransport } from '../../src/client/index.js';
import type { JsonObject } from '../../src/core/types.js';
import { createAdcpServer, type AdcpServer } from '../../src/server/create-adcp-server.js';
import type { AdcpToolDefinition } from '../../src/server/types.js';

const seen: JsonObject[] = [];
const tools: AdcpToolDefinition[] = [
  {
    name: 'get_adcp_capabilities',
    description: 'capabilities',
    handler: () => ({ adcp: { major_versions: [3], supported_versions: ['3.0'] }, supported_protocols: ['media_buy'] }),
  },
  {
    name: 'get_products',
    description: 'products, missing what the schema requires of each',
    handler: (args) => {
      seen.push(args);
      return { products: [{ product_id: 'p1' }], cache_scope: 'public' };
    },
  },
];

describe('version negotiation and validation between AdcpClient and createAdcpServer', () => {
  // In memory: the client and the server talk real MCP and A2A in this process, without a port.
  const servers: AdcpServer[] = [];
  const serve = (adcpVersions: string[]) => {
    const server = createAdcpServer({ tools, adcpVersions });
    servers.push(server);
    return server;
  };
  after(async () => {
    for (const s of servers) await s.close();
  });

  it('sends adcp_version and adcp_major_version on every request, and the server echoes the release it served', async () => {
    const server = serve(['3.0']);
    const client = new AdcpClient({ transport: createInMemoryTransport(server, { protocol: 'mcp' }) }); // pinned 3.1, no negotiation
    try {
      const result = await client.call('get_products', { buying_mode: 'brief' });
      assert.equal(seen.at(-1)?.adcp_version, '3.1');
      assert.equal(seen.at(-1)?.adcp_major_version, 3);
      assert.equal(result.data?.adcp_version, '3.0', 'downshifted within the major and echoed');
    } finally {
      await client.close();
    }
  });

  it('learns the agent releases once and speaks the highest in common', async () => {
    const server = serve(['3.0']);
    const client = new AdcpClient({ transport: createInMemoryTransport(server, { protocol: 'mcp' }), negotiate: true });
    try {
      assert.equal(await client.negotiatedRelease(), '3.0');
      await client.call('get_products', { buying_mode: 'brief' });
      assert.equal(seen.at(-1)?.adcp_version, '3.0');
    } finally {
      await client.close();
    }
  });

  it('raises AdcpVersionError when no release is in common', async () => {
    const server = serve(['3.0']);
    const client = new AdcpClient({
      transport: createInMemoryTransport(server, { protocol: 'mcp' }),
      negotiate: true,
      adcpVersion: '4.0',
    });
    try {
      await assert.rejects(client.call('get_products', { buying_mode: 'brief' }), (error: unknown) => {
        assert.ok(error instanceof AdcpVersionError);
        assert.deepEqual(error.theirs, ['3.0']);
        return true;
      });
    } finally {
      await client.close();
    }
  });

  it('answers a pin the server cannot serve with VERSION_UNSUPPORTED listing what it supports', async () => {
    const server = serve(['3.1']);
    const client = new AdcpClient({
      transport: createInMemoryTransport(server, { protocol: 'mcp' }),
      adcpVersion: '3.0',
    });
    try {
      const result = await client.call('get_products', { buying_mode: 'brief' });
      assert.ok(result.status === 'failed');
      assert.equal(result.error.code, 'VERSION_UNSUPPORTED');
      const details = (result.data!.adcp_error as JsonObject).details as JsonObject;
      assert.deepEqual(details.supported_versions, ['3.1']);
    } finally {
      await client.close();
    }
  });

  it('refuses invalid arguments on the server with INVALID_REQUEST, field and issues, before the handler runs', async () => {
    const server = serve(['3.0', '3.1']);
    const client = new AdcpClient({ transport: createInMemoryTransport(server, { protocol: 'a2a' }) });
    const before = seen.length;
    try {
      const result = await client.call<string>('get_products', { buying_mode: 'retail' });
      assert.ok(result.status === 'failed');
      assert.equal(result.error.code, 'INVALID_REQUEST');
      const error = result.data?.adcp_error as JsonObject;
      assert.equal(error.field, 'buying_mode');
      assert.equal((error.issues as JsonObject[])[0]?.pointer, '/buying_mode');
      assert.equal(seen.length, before, 'the handler did not run');
    } finally {
      await client.close();
    }
  });

  it('reports an answer that fails the response schema on the result, keeping its data', async () => {
    const server = serve(['3.0', '3.1']);
    const client = new AdcpClient({
      transport: createInMemoryTransport(server, { protocol: 'mcp' }),
      validate: 'both',
    });
    try {
      const result = await client.call('get_products', { buying_mode: 'brief' });
      assert.equal(result.status, 'completed');
      assert.deepEqual((result.data!.products as JsonObject[])[0], { product_id: 'p1' });
      assert.equal(result.validation?.ok, false);
      // A validating client negotiates: the capabilities tool above lists 3.0 only.
      assert.equal(result.validation?.release, '3.0');
      // Validation stops at the first problem (docs/decisions/0121), inside the first product.
      assert.ok(result.validation?.issues.every((i) => i.pointer.startsWith('/products/0')));
    } finally {
      await client.close();
    }
  });
});
