import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import { SqliteTaskStore } from '../../src/store/sqlite-task-store.js';
import { taskStoreContract } from './task-store-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'adcp-task-store-'));
let n = 0;
after(() => rmSync(dir, { recursive: true, force: true }));

taskStoreContract('memory', (policy) => new MemoryTaskStore({ policy }));
taskStoreContract(
  'sqlite',
  (policy) => {
    n += 1;
    return new SqliteTaskStore({ path: join(dir, `tasks-${n}.db`), policy, sweepIntervalMs: 0 });
  },
  { makeSibling: (policy) => new SqliteTaskStore({ path: join(dir, `tasks-${n}.db`), policy, sweepIntervalMs: 0 }) },
);
