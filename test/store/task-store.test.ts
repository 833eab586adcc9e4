import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryTaskStore } from '../../src/store/memory-task-store.js';
import { createSqliteTaskStore } from '../../src/store/sqlite-task-store.js';
import { taskStoreContract } from './task-store-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'adcp-task-store-'));
let n = 0;
after(() => rmSync(dir, { recursive: true, force: true }));

taskStoreContract('memory', (policy) => createMemoryTaskStore(policy));
taskStoreContract(
  'sqlite',
  (policy) => {
    n += 1;
    return createSqliteTaskStore({ path: join(dir, `tasks-${n}.db`), policy, sweepIntervalMs: 0 });
  },
  { makeSibling: (policy) => createSqliteTaskStore({ path: join(dir, `tasks-${n}.db`), policy, sweepIntervalMs: 0 }) },
);
