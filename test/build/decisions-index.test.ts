import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

// docs/decisions/README.md is the index of the decision records: every record is listed once,
// every link points at a record, and no number is used twice (numbers are allocated in blocks).
const dir = resolve(import.meta.dirname, '..', '..', 'docs', 'decisions');

test('the decision index lists every record once, and only records that exist', () => {
  const records = readdirSync(dir).filter((f) => /^\d{4}-[a-z0-9-]+\.md$/.test(f));
  assert.ok(records.length > 0, 'no decision records found');
  const index = readFileSync(join(dir, 'README.md'), 'utf8');
  const linked = [...index.matchAll(/\]\((\d{4}-[a-z0-9-]+\.md)\)/g)].map((m) => m[1] ?? '');
  for (const file of linked) assert.ok(existsSync(join(dir, file)), `the index links ${file}, which does not exist`);
  const missing = records.filter((f) => !linked.includes(f));
  assert.deepEqual(missing, [], 'records missing from docs/decisions/README.md: run node scripts/decisions-index.mjs');
  assert.equal(new Set(linked).size, linked.length, 'a record is listed twice');
  const numbers = records.map((f) => f.slice(0, 4));
  const twice = numbers.filter((n, i) => numbers.indexOf(n) !== i);
  assert.deepEqual(twice, [], 'two records share a number');
  for (const file of records) {
    const first = readFileSync(join(dir, file), 'utf8').split('\n')[0] ?? '';
    assert.match(first, /^# /, `${file} starts with its title`);
  }
});
