// Buy: one client per agent, over MCP or A2A. Run against the reference seller (`adcp serve`):
//   node --import tsx examples/buy.ts http://127.0.0.1:3000/mcp
import { AdcpClient } from 'adcp-wire/client';

const url = process.argv[2] ?? 'http://127.0.0.1:3000/mcp';
const seller = new AdcpClient({ url, protocol: 'mcp' }); // or 'a2a', 'auto'
const products = await seller.call('get_products', { buying_mode: 'brief', brief: 'live sports on CTV' });
if (products.status === 'completed') console.log(products.data?.products?.length, 'products');

const buy = await seller.call('create_media_buy', {
  account: { brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example' },
  brand: { domain: 'acmeoutdoor.example' },
  start_time: 'asap',
  end_time: '2027-03-31T23:59:59Z',
  packages: [{ product_id: 'olv_pets', pricing_option_id: 'olv_pets-cpm', budget: 500 }],
}); // idempotency_key added (and kept across retries); transient errors retried within ceilings
const done = await seller.waitFor(buy, { timeoutMs: 60_000 }); // polls get_task_status
// A refusal is data, not an exception.
if (done.status === 'failed') console.log(done.error.code, done.error.action);
else console.log(done.status);
await seller.close();
