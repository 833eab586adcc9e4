// Run by lazy-api.test.ts in a fresh process: an AdcpClient call over A2A and over MCP to
// createAdcpServer in memory before anything OpenTelemetry is registered, then again after an SDK
// is. Prints whether `@opentelemetry/api` was loaded after the first calls and the client span
// names recorded after the registration.
import { createRequire } from 'node:module';
import { AdcpClient, createInMemoryTransport } from '../../src/client/index.js';
import { createAdcpServer } from '../../src/server/index.js';

const server = createAdcpServer({
  validateRequests: false,
  tools: [{ name: 'get_products', description: 'Products', handler: () => ({ products: [] }) }],
});
const callBoth = async (): Promise<string[]> => {
  const statuses: string[] = [];
  for (const protocol of ['a2a', 'mcp'] as const) {
    const client = new AdcpClient({ transport: createInMemoryTransport(server, { protocol }) });
    statuses.push((await client.call('get_products', { buying_mode: 'brief', brief: 'news' })).status);
    await client.close();
  }
  return statuses;
};
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('@opentelemetry/api'));

const before = await callBoth();
const loadedBefore = loaded();
const { registerTestSdk } = await import('./otel-sdk.js');
const sdk = registerTestSdk();
const after = await callBoth();
const spans = sdk.spans().map((s) => s.name);
await sdk.shutdown();
await server.close();
console.log(JSON.stringify({ before, loadedBefore, after, spans }));
