// `adcp serve --store-connections N`: the most PostgreSQL connections one instance holds, so a
// fleet's total can be sized to the database (docs/fleet.md, "Connections").
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { main } from '../../src/cli/main.js';
import { AdcpClient } from '../../src/client/index.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { spawnServe } from '../interop/helpers/spawn-serve.js';
import { dropTestSchemas, pgSkip, pgUrl, testSchemaUrl } from '../pg/pg-test-env.js';
import { recordingIo } from './fake-io.js';

/** Open TCP connections of process `pid` to `port` (Linux: its socket fds matched in /proc/net/tcp). */
function connectionsTo(pid: number, port: number): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let count = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local, remote, state (01 = established), ..., inode
      if (fields[2]?.endsWith(`:${hexPort}`) && fields[3] === '01' && inodes.has(fields[9] ?? '')) count += 1;
    }
  }
  return count;
}

describe('adcp serve --store-connections', () => {
  it('refuses a count that is not a whole number from 1 to 100', async () => {
    for (const value of ['0', '-1', '1.5', 'ten', '101', '']) {
      const io = recordingIo();
      const argv = [
        'serve',
        '--port',
        '0',
        '--store-url',
        'postgres://u@127.0.0.1:1/adcp',
        `--store-connections=${value}`,
      ];
      assert.equal(await main(argv, io), 2, value);
      assert.match(io.err(), /--store-connections takes a whole number from 1 to 100/);
    }
  });

  it('refuses it without a PostgreSQL --store-url', async () => {
    const io = recordingIo();
    assert.equal(await main(['serve', '--port', '0', '--store-connections', '4'], io), 2);
    assert.match(io.err(), /--store-connections goes with --store-url postgres:\/\//);
  });

  it(
    'holds at most that many PostgreSQL connections under concurrent calls',
    { skip: pgSkip, timeout: 180_000 },
    async () => {
      after(dropTestSchemas);
      const storeUrl = await testSchemaUrl('conns');
      const pgPort = Number(new URL(pgUrl as string).port || 5432);
      const served = await spawnServe(['--store-url', storeUrl, '--store-connections', '2'], { startMs: 120_000 });
      const client = new AdcpClient({ url: served.mcp, protocol: 'mcp' });
      try {
        // 12 media buys at once: each needs a connection for its task create transaction, so a
        // pool of the default 10 would open more than 2.
        const answers = await Promise.all(
          Array.from({ length: 12 }, () =>
            client.call('create_media_buy', {
              ...mediaBuyRequest([packageRequest('olv_pets', 5)]),
              idempotency_key: randomUUID(),
            }),
          ),
        );
        for (const answer of answers) assert.notEqual(answer.status, 'failed');
        const held = connectionsTo(served.child.pid ?? 0, pgPort);
        assert.ok(held >= 1 && held <= 2, `connections held: ${held}`);
      } finally {
        await client.close();
        await served.stop();
      }
    },
  );
});
