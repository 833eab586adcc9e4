import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createWebhookEmitter, type DeliveryOutcome } from '../../src/webhooks/create-webhook-emitter.js';
import { SECRET } from './helpers.js';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'crash-receiver.ts');
const EVENTS = 300;
const KILLS = 3;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function startReceiver(dbPath: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, dbPath, String(port), SECRET], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('receiver did not start in 20 s')), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => reject(new Error(`receiver exited early (${code})`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('webhook receiver crash (SIGKILL mid-stream, restart on the same SQLite file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-crash-'));
  const dbPath = join(dir, 'receiver.db');
  let child: ChildProcess | undefined;
  after(async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) await killed(child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses no event and dispatches none twice', async () => {
    const port = await freePort();
    child = await startReceiver(dbPath, port);
    const emitter = createWebhookEmitter({
      allowInsecureUrls: true,
      maxAttempts: 200,
      baseDelayMs: 20,
      maxDelayMs: 200,
      timeoutMs: 2000,
    });
    const config = {
      url: `http://127.0.0.1:${port}/webhooks/adcp`,
      authentication: { schemes: ['HMAC-SHA256'], credentials: SECRET },
    };
    const keys: string[] = [];
    let next = 0;
    let finished = 0;
    const worker = async (): Promise<DeliveryOutcome[]> => {
      const out: DeliveryOutcome[] = [];
      while (next < EVENTS) {
        const i = next++;
        const idempotencyKey = `whk_crash_${String(i).padStart(6, '0')}_x`;
        keys.push(idempotencyKey);
        out.push(
          await emitter.send(config, {
            operationId: `op_${i}`,
            taskId: `task_${i}`,
            taskType: 'create_media_buy',
            status: 'completed',
            idempotencyKey,
            result: { i },
          }),
        );
        finished += 1;
        await new Promise((r) => setTimeout(r, 3));
      }
      return out;
    };
    const sending = Promise.all(Array.from({ length: 8 }, worker));
    for (let k = 0; k < KILLS; k += 1) {
      // Kill at 20 %, 45 % and 70 % of the stream, however fast the machine is today.
      const mark = Math.floor(EVENTS * (0.2 + 0.25 * k));
      for (let waited = 0; finished < mark && waited < 30_000; waited += 5) await new Promise((r) => setTimeout(r, 5));
      await killed(child);
      await new Promise((r) => setTimeout(r, 150));
      child = await startReceiver(dbPath, port);
    }
    const outcomes = (await sending).flat();
    await killed(child);

    assert.equal(outcomes.length, EVENTS);
    assert.deepEqual(
      outcomes.filter((o) => !o.ok),
      [],
    );
    const db = new Database(dbPath, { readonly: true });
    const rows = db
      .prepare(
        'SELECT idempotency_key AS key, COUNT(*) AS n, COUNT(DISTINCT pid) AS pids FROM dispatched GROUP BY idempotency_key',
      )
      .all() as Array<{ key: string; n: number }>;
    const completed = (
      db.prepare("SELECT COUNT(*) AS n FROM operations WHERE status = 'completed'").get() as { n: number }
    ).n;
    const receivers = (db.prepare('SELECT COUNT(DISTINCT pid) AS n FROM dispatched').get() as { n: number }).n;
    db.close();
    assert.equal(rows.length, EVENTS, 'every event dispatched');
    assert.deepEqual(
      rows.filter((r) => r.n !== 1),
      [],
      'no event dispatched twice',
    );
    assert.deepEqual(new Set(rows.map((r) => r.key)), new Set(keys));
    assert.equal(completed, EVENTS, 'every operation completed');
    assert.ok(receivers >= 3, `events were dispatched by ${receivers} receiver processes`);
  });
});
