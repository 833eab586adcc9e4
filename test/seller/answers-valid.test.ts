import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/adcp-client.js';
import type { JsonObject } from '../../src/core/types.js';
import { getValidator } from '../../src/schemas/adcp-validator.js';
import { describeIssues, type ValidationResult } from '../../src/schemas/validation-result.js';
import {
  creativesRequest,
  mediaBuyRequest,
  packageRequest,
  productsRequest,
  SAMPLE_ACCOUNT,
} from '../../src/seller/sample-requests.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';

// Every answer the reference seller gives, checked with the official schemas of the release the
// caller pinned (3.0 and 3.1), independently of the server's own response check.
describe('the reference seller answers valid AdCP for 3.0 and 3.1 callers', () => {
  let seller: ReferenceSeller;
  const hooks: JsonObject[] = [];
  before(async () => {
    seller = await startReferenceSeller({
      timings: { workingAfterMs: 10, completeAfterMs: 40 },
      validateResponses: 'strict',
      sendWebhook: async (_config, payload) => {
        hooks.push(payload);
      },
    });
  });
  after(async () => {
    await seller.close();
  });

  const assertValid = (result: ValidationResult, what: string) => {
    assert.ok(result.ok, `${what}: ${result.ok ? '' : describeIssues(result.issues, 10)}`);
    assert.notEqual(result.schema, undefined, `${what} was checked against a schema`);
  };

  for (const release of ['3.0', '3.1'] as const) {
    for (const protocol of ['mcp', 'a2a'] as const) {
      it(`answers every tool, status and error validly for a ${release} caller over ${protocol}`, async () => {
        const validator = getValidator(release);
        const client = new AdcpClient({ url: protocol === 'mcp' ? seller.mcpUrl : seller.a2aUrl, protocol });
        const call = async (tool: string, args: JsonObject) => {
          const result = await client.call(tool, { ...args, adcp_version: release }, { retry: false });
          const data = (result as { data?: JsonObject }).data ?? {};
          assert.equal(data.adcp_version, release, `${tool} echoes the release served`);
          if (result.status === 'failed') {
            assertValid(validator.schema('core/error.json', data.adcp_error), `${tool} error`);
          } else if (tool === 'get_task_status') {
            // The body's status is the polled task's; 3.0 has no get_task_status, its poll is tasks/get.
            const schema = validator.bundle.tool(tool)?.response ?? 'core/tasks-get-response.json';
            assertValid(validator.schema(schema, data), `${tool} ${result.status}`);
          } else {
            assertValid(validator.result(tool, result.status, data), `${tool} ${result.status}`);
          }
          return { status: result.status, data };
        };
        try {
          const caps = await call('get_adcp_capabilities', {});
          assert.deepEqual((caps.data.adcp as JsonObject).supported_versions, ['3.0', '3.1']);
          const products = await call(
            'get_products',
            productsRequest('live sports on ctv', { account: SAMPLE_ACCOUNT }),
          );
          assert.ok((products.data.products as unknown[]).length > 0);
          hooks.length = 0;
          const submitted = await call(
            'create_media_buy',
            mediaBuyRequest([packageRequest('ctv_premium_sports', 1000)], {
              push_notification_config: { url: 'http://127.0.0.1:9/hooks', operation_id: `op-${release}-${protocol}` },
            }),
          );
          assert.equal(submitted.status, 'submitted');
          let status: JsonObject = {};
          for (let i = 0; i < 200 && status.status !== 'completed'; i++) {
            status = (await call('get_task_status', { task_id: submitted.data.task_id, include_result: true })).data;
            if (status.status !== 'completed') await new Promise((r) => setTimeout(r, 10));
          }
          assert.equal(status.status, 'completed');
          assertValid(validator.response('create_media_buy', status.result), 'create_media_buy final result');
          for (let i = 0; i < 100 && hooks.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
          assert.ok(hooks.length >= 2, 'working and completed webhooks');
          for (const hook of hooks) {
            assertValid(validator.schema('core/mcp-webhook-payload.json', hook), `webhook ${String(hook.status)}`);
            if (hook.result !== undefined) {
              assertValid(validator.result('create_media_buy', String(hook.status), hook.result), `webhook result`);
            }
          }
          await call('get_media_buy_delivery', { account: SAMPLE_ACCOUNT });
          await call('sync_creatives', creativesRequest([{ creative_id: `cr-${protocol}`, name: 'Spot' }]));
          await call('list_creatives', { account: SAMPLE_ACCOUNT });
          const missing = await call('create_media_buy', mediaBuyRequest([packageRequest('no_such_product', 10)]));
          assert.equal((missing.data.adcp_error as JsonObject).code, 'PRODUCT_NOT_FOUND');
          const invalid = await call('get_products', { brief: 42 });
          assert.equal((invalid.data.adcp_error as JsonObject).code, 'INVALID_REQUEST');
        } finally {
          await client.close();
        }
      });
    }
  }
});
