import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformanceCommand } from './conformance.js';
import { requireWebhooks } from './conformance/load-webhooks.js';
import { HandlerUnavailable } from './conformance/types.js';
import { FORMAT_HANDLERS } from './conformance/handlers.js';
import type { CliIo } from './io.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const vectorsDir = path.resolve(repoRoot, '../shared/vectors');

function io(cwd = repoRoot): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (c: string) => (out += c) },
    stderr: { write: (c: string) => (err += c) },
    env: {},
    cwd,
    out: () => out,
    err: () => err,
  };
}

describe('adcp conformance on the shared vectors', () => {
  it('passes every core vector file and exits 0', async () => {
    const t = io();
    const code = await conformanceCommand(['--vectors', vectorsDir], t);
    assert.equal(code, 0, t.out() + t.err());
    const out = t.out();
    assert.match(out, /^PASS {2}transport-error-mapping\.json: transport errors, 22 passed, 0 failed$/m);
    assert.match(out, /^PASS {2}webhook-payload-extraction\.json: webhook payload extraction, 8 passed, 0 failed$/m);
    assert.match(out, /^PASS {2}webhook-receiver-envelope\.json: webhook receiver envelope, 4 passed, 0 failed$/m);
    assert.match(out, /^PASS {2}mcp-response-extraction\.json: response extraction, 11 passed, 0 failed$/m);
    assert.match(out, /^PASS {2}a2a-response-extraction\.json: response extraction, 21 passed, 0 failed$/m);
    assert.doesNotMatch(out, /^FAIL/m);
  });
  it('accepts a folder relative to the working directory', async () => {
    const t = io(path.dirname(vectorsDir));
    assert.equal(await conformanceCommand(['--vectors', 'vectors', '--json'], t), 0);
    const report = JSON.parse(t.out()) as { totals: { failed: number; passed: number } };
    assert.equal(report.totals.failed, 0);
    assert.ok(report.totals.passed >= 66);
  });
});

describe('adcp conformance on a folder with a failing vector and an unknown file', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'adcp-conformance-'));
    await mkdir(path.join(dir, 'nested'));
    const response = {
      isError: true,
      structuredContent: { adcp_error: { code: 'RATE_LIMITED', recovery: 'transient' } },
    };
    await writeFile(
      path.join(dir, 'nested', 'my-own-errors.json'),
      JSON.stringify({
        vectors: [
          { id: 'good-one', response, expected_error: response.structuredContent.adcp_error, expected_action: 'retry' },
          {
            id: 'wrong-action',
            response,
            expected_error: response.structuredContent.adcp_error,
            expected_action: 'escalate_to_human',
          },
        ],
      }),
    );
    await writeFile(path.join(dir, 'unknown.json'), JSON.stringify({ hello: 'world' }));
    await writeFile(path.join(dir, 'broken.json'), '{"a":1,"a":2}');
    await writeFile(path.join(dir, 'notes.txt'), 'not a vector');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('exits 1 and prints the failing file with counts and the failing id and reason', async () => {
    const t = io();
    assert.equal(await conformanceCommand(['--vectors', dir], t), 1);
    const out = t.out();
    assert.match(out, /^FAIL {2}nested\/my-own-errors\.json: transport errors, 1 passed, 1 failed$/m);
    assert.match(out, /^ {6}✗ wrong-action: action: expected "escalate_to_human", got "retry"$/m);
    assert.doesNotMatch(out, /good-one/);
  });
  it('names the files it did not recognise, with the reason', async () => {
    const t = io();
    await conformanceCommand(['--vectors', dir], t);
    assert.match(t.out(), /^SKIP {2}unknown\.json: not recognised \(not a recognised vector format\)$/m);
    assert.match(t.out(), /^SKIP {2}broken\.json: not recognised \(not JSON \(duplicate_key 'a'\)\)$/m);
    assert.doesNotMatch(t.out(), /notes\.txt/);
    assert.match(t.out(), /2 vectors in 3 files: 1 passed, 1 failed; 2 files not recognised, 0 skipped\./);
  });
  it('reports the same in --json', async () => {
    const t = io();
    assert.equal(await conformanceCommand(['--vectors', dir, '--json'], t), 1);
    const report = JSON.parse(t.out()) as { files: { file: string; status: string; failures: { id: string }[] }[] };
    const failing = report.files.find((f) => f.file === 'nested/my-own-errors.json');
    assert.equal(failing?.status, 'failed');
    assert.deepEqual(
      failing?.failures.map((f) => f.id),
      ['wrong-action'],
    );
    assert.equal(report.files.find((f) => f.file === 'unknown.json')?.status, 'unrecognised');
  });
});

describe('adcp conformance command line', () => {
  it('prints help and exits 0', async () => {
    const t = io();
    assert.equal(await conformanceCommand(['--help'], t), 0);
    assert.match(t.out(), /^Usage: adcp conformance --vectors DIR \[--json\]/);
  });
  it('exits 2 without --vectors or with a folder that does not exist', async () => {
    const a = io();
    assert.equal(await conformanceCommand([], a), 2);
    assert.match(a.err(), /missing --vectors DIR/);
    const b = io();
    assert.equal(await conformanceCommand(['--vectors', '/nonexistent/adcp-vectors'], b), 2);
    assert.match(b.err(), /is not a folder/);
  });
  it('exits 1 when the folder holds no vectors at all', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'adcp-conformance-empty-'));
    try {
      const t = io();
      assert.equal(await conformanceCommand(['--vectors', empty], t), 1);
      assert.match(t.err(), /no vectors found/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('conformance format handlers', () => {
  it('report a missing webhooks export as HandlerUnavailable, so the file is skipped, not failed', async () => {
    await assert.rejects(
      requireWebhooks('noSuchFunction' as never),
      (e: unknown) => e instanceof HandlerUnavailable && /noSuchFunction/.test(e.message),
    );
  });
  it('recognise a document by its fields, whatever its name', () => {
    const doc = {
      vectors: [{ id: 'x', payload: { task_id: 't', status: 'completed', result: {} }, expected_data: {} }],
    };
    assert.equal(FORMAT_HANDLERS.find((h) => h.matches(doc))?.format, 'webhook payload extraction');
    assert.equal(
      FORMAT_HANDLERS.find((h) => h.matches({ vectors: [] })),
      undefined,
    );
  });
});
