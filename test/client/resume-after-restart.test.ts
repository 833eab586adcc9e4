// A buyer's process starts async work and exits; another process resumes waiting from the
// operations store (SQLite file), with the task-type check intact.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AdcpClient } from '../../src/client/index.js';
import type { TaskResult } from '../../src/core/task-result.js';
import { SqliteOperationStore } from '../../src/store/sqlite-operation-store.js';
import { startMcpTestServer, submitThenCompleteTools, type TestServer } from '../mcp/helpers/mcp-test-server.js';
import { fakeClock } from './helpers/fake-clock.js';

/** Sleeps return at once; time starts at the real now (the stored operation was written at it). */
const clock = () => Object.assign(fakeClock(), { time: Date.now() });

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const src = (file: string) => JSON.stringify(pathToFileURL(path.join(repoRoot, 'src', file)).href);

/** The first process: starts a media buy (the agent answers `submitted`), prints the result, exits. */
const FIRST_PROCESS = `
const { AdcpClient } = await import(${src('client/index.ts')});
const { SqliteOperationStore } = await import(${src('store/sqlite-operation-store.ts')});
const [url, dbPath] = process.argv.slice(2);
const operations = new SqliteOperationStore({ path: dbPath });
const client = new AdcpClient({ url, protocol: 'mcp', operations });
const result = await client.call('create_media_buy', { buyer_ref: 'b-1' });
console.log(JSON.stringify(result));
await client.close();
await operations.close();
process.exit(0);
`;

describe('AdcpClient: resuming waitFor after the process restarted', () => {
  let server: TestServer;
  let dir = '';
  let started: TaskResult;
  before(async () => {
    server = await startMcpTestServer({
      tools: submitThenCompleteTools('mb-task-1', { media_buy_id: 'mb-1' }, 'create_media_buy'),
    });
    dir = mkdtempSync(path.join(tmpdir(), 'adcp-resume-'));
    writeFileSync(path.join(dir, 'first.mjs'), FIRST_PROCESS);
    // Async spawn: the agent runs in this process and must keep answering while the child calls it.
    const first = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(dir, 'first.mjs'), server.url, path.join(dir, 'ops.db')],
        { cwd: repoRoot, timeout: 90_000 },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    assert.equal(first.status, 0, first.stderr);
    started = JSON.parse(first.stdout.trim().split('\n').at(-1) as string) as TaskResult;
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the first process got a submitted result carrying its operation', () => {
    assert.equal(started.status, 'submitted');
    assert.deepEqual(started.operation, {
      operationId: 'mb-task-1',
      agent: server.url,
      taskType: 'create_media_buy',
    });
  });

  it('lists what was in flight, waits for it from the record, and moves the stored operation', async () => {
    const operations = new SqliteOperationStore({ path: path.join(dir, 'ops.db') });
    const client = new AdcpClient({ url: server.url, protocol: 'mcp', operations, clock: clock() });
    try {
      const open = await client.resumeOpenOperations();
      assert.deepEqual(
        open.map((r) => [r.operationId, r.taskType, r.status, r.taskId]),
        [['mb-task-1', 'create_media_buy', 'submitted', 'mb-task-1']],
      );
      const final = await client.waitFor(open[0]!);
      assert.equal(final.status, 'completed');
      assert.equal(final.data?.['media_buy_id'], 'mb-1');
      assert.equal(final.operation?.operationId, 'mb-task-1');
      assert.equal((await operations.get('mb-task-1'))?.status, 'completed');
      assert.deepEqual(await client.resumeOpenOperations(), []);
      // The result as the first process printed it (rebuilt from JSON) and the bare id work too.
      assert.equal((await client.waitFor(started)).status, 'completed');
      assert.equal((await client.waitFor('mb-task-1')).status, 'completed');
    } finally {
      await client.close();
      await operations.close();
    }
  });

  it('keeps the task-type check: a stored operation of another task type is refused', async () => {
    const operations = new SqliteOperationStore({ path: path.join(dir, 'ops.db') });
    const client = new AdcpClient({ url: server.url, protocol: 'mcp', operations, clock: clock() });
    try {
      await operations.create({
        operationId: 'op-creatives',
        agent: server.url,
        taskType: 'sync_creatives',
        taskId: 'mb-task-1',
        status: 'submitted',
        statusAt: 1,
        now: 1,
      });
      await assert.rejects(
        client.waitFor('op-creatives'),
        /task-correlation failure: polled mb-task-1 \(sync_creatives\)/,
      );
      await assert.rejects(client.waitFor('op-unknown'), RangeError);
      await assert.rejects(
        client.waitFor({ ...started, operation: { ...started.operation!, agent: 'http://127.0.0.1:1/mcp' } }),
        TypeError,
      );
    } finally {
      await client.close();
      await operations.close();
    }
  });

  it('needs an operations store to resume by id', async () => {
    const client = new AdcpClient({ url: server.url, protocol: 'mcp' });
    await assert.rejects(client.waitFor('mb-task-1'), /pass an `operations` store/);
    await assert.rejects(client.resumeOpenOperations(), TypeError);
    await client.close();
  });
});
