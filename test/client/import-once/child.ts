// Child of validator-import-once.test.ts: counts how often AdcpClient asks the module loader for
// the validator module across several validated calls, with a loader hook registered (as tsx,
// OpenTelemetry's instrumentation or a test runner would).
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { CATALOG, productToWire } from '../../../src/seller/catalog.js';
import { startMcpTestServer } from '../../mcp/helpers/mcp-test-server.js';

const { port1, port2 } = new MessageChannel();
let resolved = 0;
port1.on('message', () => {
  resolved += 1;
});
port1.unref();
register(new URL('./count-hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });

const { AdcpClient } = await import('../../../src/client/index.js');
const body = { status: 'completed', products: CATALOG.slice(0, 2).map((p) => productToWire(p)), cache_scope: 'public' };
const server = await startMcpTestServer({
  tools: [{ name: 'get_products', handler: () => ({ content: [], structuredContent: body }) }],
});
const client = new AdcpClient({ url: server.url, protocol: 'mcp', validate: 'both' });
const checks: unknown[] = [];
try {
  for (let i = 0; i < 5; i++) {
    const result = await client.call('get_products', {
      buying_mode: 'brief',
      brief: 'CTV',
      brand: { domain: 'example.com' },
    });
    checks.push(result.validation?.ok);
  }
} finally {
  await client.close();
  await server.close();
}
await new Promise((resolve) => setTimeout(resolve, 200)); // let the hooks thread's messages arrive
console.log(JSON.stringify({ checks, resolved }));
