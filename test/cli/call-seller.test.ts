import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { recordingIo } from './fake-io.js';
import { DEAD_URL, fastSeller } from './seller.js';
import { startReferenceSeller } from '../../src/seller/index.js';

describe('adcp call against the reference seller', () => {
  let seller: ListeningAdcpServer;
  before(async () => {
    seller = await fastSeller();
  });
  after(async () => seller.close());

  it('gets products over MCP and prints them', async () => {
    const io = recordingIo();
    assert.equal(
      await main(['call', seller.mcpUrl, 'get_products', '{"buying_mode":"brief","brief":"live sports on CTV"}'], io),
      0,
    );
    assert.match(io.out(), /^completed  get_products via mcp/);
    assert.match(io.out(), /"product_id": "ctv_premium_sports"/);
  });

  it('gets products over A2A with --protocol a2a', async () => {
    const io = recordingIo();
    assert.equal(
      await main(
        [
          'call',
          seller.a2aUrl,
          'get_products',
          '{"buying_mode":"brief","brief":"pets"}',
          '--protocol',
          'a2a',
          '--json',
        ],
        io,
      ),
      0,
    );
    const out = JSON.parse(io.out()) as { status: string; protocol: string; data: { products: unknown[] } };
    assert.equal(out.status, 'completed');
    assert.equal(out.protocol, 'a2a');
    assert.ok(out.data.products.length > 0);
  });

  it('answers submitted with a task id without --wait', async () => {
    const io = recordingIo();
    const code = await main(
      [
        'call',
        seller.mcpUrl,
        'create_media_buy',
        '{"account":{"brand":{"domain":"acmeoutdoor.example"},"operator":"pinnacle-agency.example"},"brand":{"domain":"acmeoutdoor.example"},"start_time":"asap","end_time":"2099-12-31T23:59:59Z","packages":[{"product_id":"olv_pets","pricing_option_id":"olv_pets-cpm","budget":5}]}',
        '--json',
      ],
      io,
    );
    assert.equal(code, 0);
    const out = JSON.parse(io.out()) as { status: string; task_id?: string };
    assert.equal(out.status, 'submitted');
    assert.equal(typeof out.task_id, 'string');
  });

  it('follows a media buy to completed with --wait', async () => {
    const io = recordingIo();
    const code = await main(
      [
        'call',
        seller.mcpUrl,
        'create_media_buy',
        '{"account":{"brand":{"domain":"acmeoutdoor.example"},"operator":"pinnacle-agency.example"},"brand":{"domain":"acmeoutdoor.example"},"start_time":"asap","end_time":"2099-12-31T23:59:59Z","packages":[{"product_id":"olv_pets","pricing_option_id":"olv_pets-cpm","budget":5}]}',
        '--wait',
        '--timeout',
        '30',
      ],
      io,
    );
    assert.equal(code, 0);
    assert.match(io.out(), /^completed  create_media_buy via mcp/);
    assert.match(io.out(), /"media_buy_id": "mb_/);
    assert.match(io.err(), /… AdCP task completed/);
  });

  it('labels whose status each progress line shows: the A2A task, then the AdCP task', async () => {
    const io = recordingIo();
    const buy =
      '{"account":{"brand":{"domain":"acmeoutdoor.example"},"operator":"pinnacle-agency.example"},"brand":{"domain":"acmeoutdoor.example"},"start_time":"asap","end_time":"2099-12-31T23:59:59Z","packages":[{"product_id":"olv_pets","pricing_option_id":"olv_pets-cpm","budget":5}]}';
    const argv = ['call', seller.a2aUrl, 'create_media_buy', buy, '--protocol', 'a2a', '--wait', '--timeout', '30'];
    assert.equal(await main(argv, io), 0, io.err());
    const lines = io
      .err()
      .split('\n')
      .filter((l) => l.startsWith('… '));
    // The A2A task of the call ends (completed) handing over AdCP work that is only submitted.
    const a2a = lines.findIndex((l) => /^… A2A task completed/.test(l));
    const adcp = lines.findIndex((l) => /^… AdCP task submitted  task /.test(l));
    assert.ok(a2a >= 0 && adcp > a2a, lines.join('\n'));
    assert.match(lines.at(-1) ?? '', /^… AdCP task completed/);
    assert.ok(
      lines.every((l) => /^… (A2A task|AdCP task) /.test(l)),
      lines.join('\n'),
    );
  });

  it('shows the A2A task of the call itself after --wait over A2A, not the last poll', async () => {
    const io = recordingIo();
    const buy =
      '{"account":{"brand":{"domain":"acmeoutdoor.example"},"operator":"pinnacle-agency.example"},"brand":{"domain":"acmeoutdoor.example"},"start_time":"asap","end_time":"2099-12-31T23:59:59Z","packages":[{"product_id":"olv_pets","pricing_option_id":"olv_pets-cpm","budget":5}]}';
    const argv = ['call', seller.a2aUrl, 'create_media_buy', buy, '--protocol', 'a2a', '--wait', '--timeout', '30'];
    assert.equal(await main([...argv, '--json'], io), 0, io.err());
    const done = JSON.parse(io.out()) as { status: string; task_id?: string; transport_task_id?: string };
    assert.equal(done.status, 'completed');
    // That A2A task is the create_media_buy call: it ended handing over the AdCP task (submitted,
    // with its task_id). A get_task_status poll's A2A task would read completed.
    const task = recordingIo();
    const get = ['tasks', 'get', seller.a2aUrl, done.transport_task_id ?? '', '--protocol', 'a2a', '--transport-task'];
    assert.equal(await main([...get, '--json'], task), 0, task.err());
    const original = JSON.parse(task.out()) as { status: string; task_id?: string };
    assert.equal(original.status, 'submitted');
    assert.equal(original.task_id, done.task_id);
  });

  it('exits 1 with the error and advice when the seller refuses (failure injected by --header)', async () => {
    const io = recordingIo();
    const code = await main(
      ['call', seller.mcpUrl, 'get_products', '{"buying_mode":"brief"}', '--header', 'x-adcp-fail: POLICY_VIOLATION'],
      io,
    );
    assert.equal(code, 1);
    assert.match(io.out(), /error +POLICY_VIOLATION: Failure injected/);
    assert.match(io.out(), /what next +fix the request and call again/);
  });

  it('prints the task id when --wait runs out of time (--json: one document on stdout)', async () => {
    const slow = await startReferenceSeller({
      port: 0,
      host: '127.0.0.1',
      timings: { workingAfterMs: 60_000, completeAfterMs: 120_000 },
    });
    try {
      const buy =
        '{"account":{"brand":{"domain":"acmeoutdoor.example"},"operator":"pinnacle-agency.example"},"brand":{"domain":"acmeoutdoor.example"},"start_time":"asap","end_time":"2099-12-31T23:59:59Z","packages":[{"product_id":"olv_pets","pricing_option_id":"olv_pets-cpm","budget":5}]}';
      const json = recordingIo();
      const code = await main(
        ['call', slow.mcpUrl, 'create_media_buy', buy, '--wait', '--timeout', '5', '--json'],
        json,
      );
      assert.equal(code, 4);
      const doc = JSON.parse(json.out()) as { status: string; task_id?: string; timed_out?: boolean };
      assert.equal(doc.status, 'submitted');
      assert.equal(doc.timed_out, true);
      assert.match(doc.task_id ?? '', /\S/);
      assert.ok(json.err().includes(`adcp tasks get ${slow.mcpUrl} ${doc.task_id ?? ''}`), json.err());

      const human = recordingIo();
      assert.equal(await main(['call', slow.mcpUrl, 'create_media_buy', buy, '--wait', '--timeout', '5'], human), 4);
      assert.match(human.err(), /did not finish within --timeout.*Follow it: adcp tasks get \S+ \S+/);
    } finally {
      await slow.close();
    }
  });

  it('says which attempt it is making and why, then how many were made', async () => {
    const io = recordingIo();
    const code = await main(
      ['call', seller.mcpUrl, 'get_products', '{"buying_mode":"brief","brief":"[rate-limit] pets"}', '--wait'],
      io,
    );
    assert.equal(code, 1);
    assert.match(io.err(), /RATE_LIMITED: attempt 2 of 3, waiting 1 s as the agent asked/);
    assert.match(io.err(), /RATE_LIMITED: attempt 3 of 3, waiting 1 s as the agent asked/);
    assert.match(io.out(), /after 3 attempts/);
  });

  it('exits 3 when nothing listens at the URL', async () => {
    const io = recordingIo();
    assert.equal(await main(['call', DEAD_URL, 'get_products', '--timeout', '5'], io), 3);
    assert.match(io.err(), /check the URL and that the agent is running/);
  });
});
