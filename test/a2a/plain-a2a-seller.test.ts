// A plain A2A seller (one whose card does not declare the AdCP A2A profile), served by the real
// @a2a-js/sdk servers on 127.0.0.1: refused by default with the whole way through in the message,
// called with a2aWire 'plain' (1.0, no profile activation), reached over its v0.3 interface by
// `auto`, and the same through the CLI's --a2a-wire (decision 0165).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { AdcpWireError } from '../../src/index.js';
import { main } from '../../src/cli/main.js';
import { recordingIo } from '../cli/fake-io.js';
import { startV03Server, startV1Server, type TestServer } from './sdk-servers.js';
import type { Script } from './scenario.js';

const PROFILE_URI = 'https://adcontextprotocol.org/extensions/adcp/v3';

const script: Script = (skill) => {
  if (skill === 'create_media_buy') {
    // A plain agent may keep AdCP's submitted work in an A2A task that is itself still submitted.
    return [
      {
        state: 'submitted',
        message: [{ text: 'Queued' }, { data: { status: 'submitted', task_id: 'adcp_t1', message: 'Queued' } }],
      },
    ];
  }
  return [
    { artifact: { id: 'r', parts: [{ data: { status: 'completed', products: [{ product_id: 'p1' }] } }] } },
    { state: 'completed' },
  ];
};

const ARGS = { buying_mode: 'brief', brief: 'pets' } as const;

describe('a plain A2A seller (no AdCP A2A profile on its card)', () => {
  let plain: TestServer;
  let dual: TestServer;
  let v03: TestServer;
  before(async () => {
    plain = await startV1Server(script, { plain: true });
    dual = await startV1Server(script, { plain: true, compat: true });
    v03 = await startV03Server(script);
  });
  after(async () => {
    await plain.close();
    await dual.close();
    await v03.close();
  });

  it('is refused by default, and the message names every way through', async () => {
    const client = new AdcpClient({ url: plain.base, protocol: 'a2a', timeoutMs: 10_000 });
    try {
      await assert.rejects(client.call('get_products', ARGS), (e: unknown) => {
        assert.ok(e instanceof AdcpWireError);
        assert.equal(e.code, 'profile_violation');
        assert.equal(e.rule, 'extension_not_advertised');
        assert.match(e.message, /a2aWire: 'plain'/);
        return true;
      });
      assert.deepEqual(plain.calls, [], 'nothing was sent to a card that breaks the profile');
    } finally {
      await client.close();
    }
  });

  it("is called with a2aWire 'plain': A2A 1.0, the profile not activated, answers read", async () => {
    const client = new AdcpClient({ url: plain.base, protocol: 'a2a', a2aWire: 'plain', timeoutMs: 10_000 });
    try {
      const result = await client.call('get_products', ARGS);
      assert.equal(result.status, 'completed');
      assert.deepEqual((result.data as { products: unknown[] }).products, [{ product_id: 'p1' }]);
      const buy = await client.call('create_media_buy', { idempotency_key: 'k1-plain-buy-0001' });
      assert.equal(buy.status, 'submitted');
      assert.equal(buy.taskId, 'adcp_t1');
      assert.deepEqual(plain.calls, ['SendMessage', 'SendMessage']);
      assert.deepEqual(plain.versions, ['1.0', '1.0']);
      assert.ok(
        plain.extensions.every((h) => h === undefined || !h.includes(PROFILE_URI)),
        'the profile is not activated',
      );
    } finally {
      await client.close();
    }
  });

  it("with a2aWire 'auto' takes the card's v0.3 interface when its 1.0 one lacks the profile", async () => {
    const client = new AdcpClient({ url: dual.base, protocol: 'a2a', timeoutMs: 10_000 });
    try {
      const result = await client.call('get_products', ARGS);
      assert.equal(result.status, 'completed');
      assert.deepEqual(dual.calls, ['message/send']);
    } finally {
      await client.close();
    }
  });

  it("a v0.3-only card is called with 'auto' (v0.3 predates the profile)", async () => {
    const client = new AdcpClient({ url: v03.base, protocol: 'a2a', timeoutMs: 10_000 });
    try {
      assert.equal((await client.call('get_products', ARGS)).status, 'completed');
      assert.deepEqual(v03.calls, ['message/send']);
    } finally {
      await client.close();
    }
  });

  it('adcp call prints the whole hint, and --a2a-wire plain gets the answer', async () => {
    const refused = recordingIo();
    const code = await main(['call', plain.base, 'get_products', JSON.stringify(ARGS), '--protocol', 'a2a'], refused);
    assert.equal(code, 3);
    assert.match(refused.err(), /a2aWire: 'plain' \[profile_violation\]/, 'the message is whole');
    assert.match(refused.err(), /--a2a-wire plain/);
    const io = recordingIo();
    const ok = await main(
      ['call', plain.base, 'get_products', JSON.stringify(ARGS), '--protocol', 'a2a', '--a2a-wire', 'plain', '--json'],
      io,
    );
    assert.equal(ok, 0, io.err());
    assert.equal((JSON.parse(io.out()) as { status: string }).status, 'completed');
    const bad = recordingIo();
    assert.equal(await main(['call', plain.base, 'get_products', '--a2a-wire', 'v2'], bad), 2);
    assert.match(bad.err(), /--a2a-wire takes auto, 1\.0, 0\.3 or plain/);
  });
});
