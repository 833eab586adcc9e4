// The media-buy kit's billing gates on sync_accounts (decision 0211): the seller-wide capability
// (`supportedBilling`, BILLING_NOT_SUPPORTED with `scope: capability`) and the seller's per-agent
// gate (`permitsBilling`, BILLING_NOT_PERMITTED_FOR_AGENT with the clamped details), the
// uniform answer to callers without an established identity, and the recovery with the
// suggested value (the billing_gate_dispatch storyboard). Served by createAdcpServer with every
// answer checked against the 3.1 response schemas (strict), called with the official MCP client.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/index.js';
import type { AdcpAuthOptions } from '../../src/server/auth/auth-options.js';
import { createMediaBuyKit, MemoryKitRecords, type MediaBuySeller } from '../../src/kit/index.js';

type Json = Record<string, unknown>;

const PASSTHROUGH = 'passthrough-token-0123456789';
const BILLABLE = 'billable-token-0123456789abc';
const seller: MediaBuySeller = {
  products: () => [],
  supportedBilling: ['operator', 'agent'],
  // The passthrough-only agent may have only the operator invoiced; anonymous callers are no agent.
  permitsBilling: (billing, { principal }) =>
    billing === 'operator' || principal === 'billable-agent' ? true : { suggested: 'operator' },
};

async function serve(auth?: AdcpAuthOptions): Promise<{ server: ListeningAdcpServer; records: MemoryKitRecords }> {
  const records = new MemoryKitRecords();
  const kit = createMediaBuyKit({ records, seller });
  const server = await createAdcpServer({
    tools: kit.tools,
    capabilities: kit.capabilities,
    validateResponses: 'strict',
    ...(auth === undefined ? {} : { auth }),
  }).listen({ port: 0, host: '127.0.0.1' });
  return { server, records };
}

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'billing-probe', version: '1.0.0' });
  const headers = token === undefined ? undefined : { authorization: `Bearer ${token}` };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), headers === undefined ? {} : { requestInit: { headers } }),
  );
  return client;
}

let keys = 0;
const syncOne = async (client: Client, entry: Json) => {
  const result = await client.callTool({
    name: 'sync_accounts',
    arguments: {
      idempotency_key: `billing-test-key-${String(++keys).padStart(6, '0')}`,
      accounts: [entry],
      context: { correlation_id: 'billing' },
    },
  });
  const body = result.structuredContent as Json;
  assert.equal(result.isError === true, false, JSON.stringify(body));
  assert.deepEqual(body.context, { correlation_id: 'billing' });
  return (body.accounts as Json[])[0] as Json;
};
const brand = { domain: 'acmeoutdoor.example' };
const account = (billing?: string) => ({
  brand,
  operator: 'pinnacle-agency.example',
  ...(billing === undefined ? {} : { billing }),
});
/** A failed entry as [action, status, code, recovery, details]. */
const failure = (entry: Json) => {
  const error = (entry.errors as Json[])[0] as Json;
  return [entry.action, entry.status, error.code, error.recovery, error.details];
};

describe('the kit billing gates, for identified agents', () => {
  let seller: ListeningAdcpServer;
  let passthrough: Client;
  let billable: Client;
  before(async () => {
    ({ server: seller } = await serve({
      tokens: { [PASSTHROUGH]: 'passthrough-agent', [BILLABLE]: 'billable-agent' },
    }));
    passthrough = await connect(seller.mcpUrl, PASSTHROUGH);
    billable = await connect(seller.mcpUrl, BILLABLE);
  });
  after(async () => {
    await passthrough.close();
    await billable.close();
    await seller.close();
  });

  it('states the capability the gate applies', async () => {
    const result = await passthrough.callTool({ name: 'get_adcp_capabilities', arguments: {} });
    assert.deepEqual(((result.structuredContent as Json).account as Json).supported_billing, ['operator', 'agent']);
  });

  it('refuses a value outside the capability with BILLING_NOT_SUPPORTED, scope capability', async () => {
    assert.deepEqual(failure(await syncOne(passthrough, account('advertiser'))), [
      'failed',
      'rejected',
      'BILLING_NOT_SUPPORTED',
      'correctable',
      { scope: 'capability', supported_billing: ['operator', 'agent'] },
    ]);
  });

  it('refuses agent billing to a passthrough-only agent with the clamped details, then provisions the suggestion', async () => {
    const refused = await syncOne(passthrough, account('agent'));
    assert.deepEqual(failure(refused), [
      'failed',
      'rejected',
      'BILLING_NOT_PERMITTED_FOR_AGENT',
      'correctable',
      { rejected_billing: 'agent', suggested_billing: 'operator' },
    ]);
    const listed = await passthrough.callTool({ name: 'list_accounts', arguments: {} });
    assert.deepEqual((listed.structuredContent as Json).accounts, [], 'a refused entry stores nothing');

    const recovered = await syncOne(passthrough, account('operator'));
    assert.deepEqual(
      [recovered.action, recovered.status, recovered.billing, typeof recovered.account_id],
      ['created', 'active', 'operator', 'string'],
    );
  });

  it('lets an agent its relationship permits be billed', async () => {
    const created = await syncOne(billable, account('agent'));
    assert.deepEqual([created.action, created.billing], ['created', 'agent']);
  });
});

describe('the kit billing gates, for a caller without an established identity', () => {
  let seller: ListeningAdcpServer;
  let anonymous: Client;
  before(async () => {
    ({ server: seller } = await serve());
    anonymous = await connect(seller.mcpUrl);
  });
  after(async () => {
    await anonymous.close();
    await seller.close();
  });

  it('answers both gates alike: BILLING_NOT_SUPPORTED without scope', async () => {
    for (const billing of ['agent', 'advertiser']) {
      assert.deepEqual(failure(await syncOne(anonymous, account(billing))), [
        'failed',
        'rejected',
        'BILLING_NOT_SUPPORTED',
        'correctable',
        { supported_billing: ['operator', 'agent'] },
      ]);
    }
    assert.equal((await syncOne(anonymous, account('operator'))).action, 'created');
  });
});
