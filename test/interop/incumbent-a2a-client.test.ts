// issue 32 item 2: the incumbent's A2A client (`@adcp/sdk` 6.11 `SingleAgentClient`: A2A 0.3,
// `{ skill, parameters }`, no profile activation), given only the A2A URL `adcp serve` prints, runs
// get_products and an async create_media_buy followed to completion; no extra configuration.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { recordingIo } from '../cli/fake-io.js';
import { incumbentA2ACall } from '../peers/adcp-sdk/a2a-client.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the incumbent @adcp/sdk A2A client at the A2A URL adcp serve prints', () => {
  const controller = new AbortController();
  let exit: Promise<number>;
  let a2a = '';
  before(async () => {
    const io = recordingIo({ cwd: repoRoot });
    io.signal = controller.signal;
    exit = main(['serve', '--port', '0', '--json'], io);
    for (let i = 0; i < 400 && a2a === ''; i++) {
      await new Promise((r) => setTimeout(r, 25));
      if (io.out().includes('\n')) a2a = (JSON.parse(io.out()) as { a2a: string }).a2a;
    }
  });
  after(async () => {
    controller.abort();
    assert.equal(await exit, 0);
  });

  it('get_products', async () => {
    const outcome = await incumbentA2ACall(a2a, 'get_products', { buying_mode: 'brief', brief: 'news display' });
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome).slice(0, 500));
    assert.ok(Array.isArray((outcome.data as { products?: unknown[] }).products));
  });

  it('an async create_media_buy, followed to completion', async () => {
    const outcome = await incumbentA2ACall(
      a2a,
      'create_media_buy',
      mediaBuyRequest([packageRequest('display_news', 10)]),
    );
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome).slice(0, 500));
    assert.equal(
      typeof (outcome.data as { media_buy_id?: unknown }).media_buy_id,
      'string',
      JSON.stringify(outcome).slice(0, 800),
    );
  });
});
