// The error-compliance storyboard (../shared/compliance/3.1.19/universal/error-compliance.yaml)
// walked against the reference seller with the official MCP and A2A clients: every probe gets the
// code the storyboard accepts, the caller's context back, and the transport binding of
// transport-errors.md (MCP: isError, the JSON text item first, structuredContent.adcp_error; A2A: a
// failed Task whose artifact DataPart carries adcp_error).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientFactory as ClientFactoryV03 } from 'a2a-sdk-v03/client';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { storyboardSteps } from './storyboard-steps.js';

type Json = Record<string, unknown>;

const steps = storyboardSteps('error-compliance');

describe('reference seller: error-compliance storyboard', () => {
  let seller: ReferenceSeller;
  let mcp: Client;
  before(async () => {
    seller = await startReferenceSeller({});
    mcp = new Client({ name: 'error-compliance', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl)));
  });
  after(async () => {
    await mcp.close();
    await seller.close();
  });

  it('reads the probes the issue names from the storyboard', () => {
    const ids = steps.map((s) => s.id);
    for (const id of ['negative_budget', 'nonexistent_product', 'missing_fields', 'reversed_dates_error']) {
      assert.ok(ids.includes(id), id);
    }
    assert.ok(ids.includes('unsupported_major_version') && ids.includes('unsupported_release_version'));
  });

  for (const step of steps) {
    it(`MCP: ${step.id} (${step.task})`, async () => {
      const result = (await mcp.callTool({ name: step.task, arguments: step.request })) as Json;
      const body = result.structuredContent as Json;
      assert.deepEqual(body.context, step.request.context, 'context echoed');
      assert.equal(body.task_status, undefined);
      if (!step.expectError) {
        // missing_fields accepts products or a structured error; the others must succeed.
        if (step.id !== 'missing_fields') assert.notEqual(result.isError, true, JSON.stringify(body.adcp_error));
        return;
      }
      assert.equal(result.isError, true);
      const error = body.adcp_error as Json;
      if (step.allowedCodes.length > 0) assert.ok(step.allowedCodes.includes(String(error.code)), String(error.code));
      assert.equal(error.recovery, 'correctable');
      assert.equal(typeof error.message, 'string');
      const content = result.content as { type: string; text: string }[];
      assert.deepEqual(JSON.parse(content[0]!.text), { adcp_error: error }, 'the JSON text item comes first');
      assert.equal(content.length, 2, 'then one terse sentence');
      if (error.code === 'VERSION_UNSUPPORTED') {
        assert.deepEqual((error.details as Json).supported_versions, ['3.0', '3.1']);
      }
    });
  }

  for (const step of steps.filter((s) => s.expectError)) {
    it(`A2A v0.3: ${step.id} is a failed Task with adcp_error in the artifact`, async () => {
      const client = await new ClientFactoryV03().createFromUrl(seller.a2aUrl);
      const task = (await client.sendMessage({
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [{ kind: 'data', data: { skill: step.task, input: step.request } }],
        },
      })) as unknown as Json;
      assert.equal((task.status as Json).state, 'failed');
      const parts = ((task.artifacts as Json[])[0]!.parts as Json[]).filter((p) => p.kind === 'data');
      const data = parts[parts.length - 1]!.data as Json;
      const error = data.adcp_error as Json;
      if (step.allowedCodes.length > 0) assert.ok(step.allowedCodes.includes(String(error.code)), String(error.code));
      assert.deepEqual(data.context, step.request.context);
    });
  }
});
