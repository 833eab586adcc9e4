// Sell: tools defined once, served over MCP and A2A on one node:http server, with idempotency,
// typed errors and a generated get_adcp_capabilities.
//   node --import tsx examples/sell.ts
import { adcpError, adcpTool, createAdcpServer } from 'adcp-wire/server';
import { MemoryIdempotencyStore } from 'adcp-wire/store';

const catalog = new Set(['olv_pets']);
const server = createAdcpServer({
  tools: [
    adcpTool({ name: 'get_products', description: 'Products.', handler: async () => ({ products: [] }) }),
    adcpTool({
      name: 'create_media_buy', // mutating: a call without idempotency_key is refused
      description: 'Create a media buy.',
      // args typed as CreateMediaBuyRequest; the answer as CreateMediaBuyResponse, and checked against
      // its schema while NODE_ENV is not production (validateResponses: 'warn')
      handler: async (args) => {
        const productId = args.packages?.[0]?.product_id;
        if (productId === undefined || !catalog.has(productId))
          throw adcpError('PRODUCT_NOT_FOUND', { field: 'packages[0].product_id' }); // recovery filled in
        return { media_buy_id: 'mb_1', revision: 1, confirmed_at: null, packages: [] };
      },
    }),
  ],
  // One run per key and payload; a retry gets the stored answer with replayed: true.
  idempotency: { store: new MemoryIdempotencyStore() }, // SqliteIdempotencyStore survives restarts
  capabilities: { account: { supported_billing: ['operator'] } }, // the rest is generated
});
const { mcpUrl, a2aUrl } = await server.listen({ port: Number(process.env['PORT'] ?? 3000) });
console.log(`MCP ${mcpUrl}, A2A ${a2aUrl}`);
