// test-timeout-ms: 600000
// Issue 35: `adcp storyboard list|show|run` against `adcp serve --test-controller` (a child
// process, as a seller runs it): the terminal summary, --json, JUnit XML and the self-contained
// HTML report, and the exit codes. CI grades adcp serve with it on every run.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { spawnServe, type ServeProcess } from '../interop/helpers/spawn-serve.js';
import { startWireRecorder } from '../storyboards/wire-recorder.js';
import type { RunReport } from '../../src/storyboard/index.js';

const COMPLIANCE = fileURLToPath(new URL('../../../shared/compliance/3.1.19', import.meta.url));

function io(cwd: string, env: Record<string, string> = {}): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (c: string) => (out += c) },
    stderr: { write: (c: string) => (err += c) },
    env,
    cwd,
    signal: new AbortController().signal,
    out: () => out,
    err: () => err,
  };
}

describe('adcp storyboard', { concurrency: 1 }, () => {
  let serve: ServeProcess;
  let dir: string;
  before(async () => {
    serve = await spawnServe(['--test-controller']);
    dir = mkdtempSync(join(tmpdir(), 'adcp-storyboard-cli-'));
  });
  after(async () => {
    await serve.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists and shows the storyboards of a compliance folder (ADCP_COMPLIANCE_DIR)', async () => {
    const listed = io(dir, { ADCP_COMPLIANCE_DIR: COMPLIANCE });
    assert.equal(await main(['storyboard', 'list'], listed), 0);
    assert.match(listed.out(), /compliance 3\.1\.19/);
    assert.match(listed.out(), /capability_discovery/);
    assert.match(listed.out(), /media_buy_seller\/refine_products/);
    const shown = io(dir);
    assert.equal(await main(['storyboard', 'show', 'capability_discovery', '--compliance-dir', COMPLIANCE], shown), 0);
    assert.match(shown.out(), /phase protocol_discovery/);
    assert.match(shown.out(), /get_capabilities \(get_adcp_capabilities\): response_schema, field_present/);
  });

  it('runs a capability-driven grading of adcp serve and writes JSON, JUnit and HTML, one MCP session per storyboard', async () => {
    // The run goes through a recording proxy: the sessions and the era are read off the wire, as
    // the server sees them, not from the runner's own count.
    const wire = await startWireRecorder(serve.url);
    const agent = wire.url(new URL(serve.mcp).pathname);
    const cli = io(dir);
    const code = await main(
      [
        'storyboard',
        'run',
        agent,
        '--mcp-era',
        'legacy',
        '--compliance-dir',
        COMPLIANCE,
        '--json',
        '--junit',
        'r.xml',
        '--html',
        'r.html',
      ],
      cli,
    );
    await wire.close();
    const report = JSON.parse(cli.out()) as RunReport;
    // Exit 1 when the agent failed, else 4 when something was not graded, else 0 (decision 0238).
    const { failed, harness_fault: faults } = report.counts.storyboards;
    assert.equal(code, failed > 0 ? 1 : faults > 0 ? 4 : 0);
    assert.equal(report.exit_code, code);
    // The pinned era on the wire: every MCP request speaks a 2025 revision, none 2026-07-28.
    const mcp = wire.records.filter((r) => r.method === 'POST' && r.rpc !== undefined);
    assert.ok(mcp.length > 100, `${mcp.length} MCP requests`);
    assert.ok(mcp.every((r) => r.protocolVersion !== '2026-07-28'));
    // Sessions as the server assigned them: the discovery probe's, and at most one per storyboard
    // plus one per distinct auth override its probes ask for (the runner's own count agrees).
    const sessions = new Set(mcp.map((r) => r.session).filter((id) => id !== undefined));
    const initializes = mcp.filter((r) => r.rpc === 'initialize').length;
    const opened = report.storyboards.reduce((n, s) => n + s.sessions, 0);
    assert.equal(sessions.size, initializes, 'one session per initialize');
    assert.ok(sessions.size <= opened + 1, `${sessions.size} sessions on the wire, ${opened} opened + discovery`);
    const ran = report.storyboards.filter((s) => s.steps.length > 0);
    const overrides = ran.reduce(
      (n, s) => n + new Set(s.steps.filter((st) => st.request?.auth !== undefined).map((st) => st.request?.auth)).size,
      0,
    );
    assert.ok(sessions.size <= ran.length + overrides + 1, `${sessions.size} sessions for ${ran.length} storyboards`);
    assert.match(cli.err(), /storyboards selected \(compliance 3\.1\.19\)/);
    assert.match(cli.err(), /\] ok {3}capability_discovery/);
    assert.ok(report.storyboards.length > 50);
    for (const s of report.storyboards) {
      // One connection per storyboard, plus one per distinct auth override its probes ask for.
      const overrides = new Set(
        s.steps.filter((step) => step.request?.auth !== undefined).map((step) => step.request?.auth),
      );
      assert.ok(s.sessions <= 1 + overrides.size, `${s.id}: ${s.sessions} connections`);
    }
    const junit = readFileSync(join(dir, 'r.xml'), 'utf8');
    assert.match(junit, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
    assert.match(junit, /<testsuite name="capability_discovery" tests="2" failures="0"/);
    // The last lines say where the reports went.
    assert.match(cli.err(), /adcp storyboard: JUnit XML: .*r\.xml\n/);
    assert.match(cli.err(), /adcp storyboard: HTML report: .*r\.html\n$/);
    const html = readFileSync(join(dir, 'r.html'), 'utf8');
    assert.match(html, /^<!doctype html>/);
    assert.doesNotMatch(html, /<script|<link |src=/i, 'self-contained, no script');
    assert.match(html, /capability_discovery/);
  });

  it('prints a terminal summary that explains each failure, and exits 1 when the agent failed', async () => {
    const cli = io(dir);
    // security_baseline: adcp serve without --auth takes unauthenticated calls, which the storyboard refuses.
    const code = await main(
      [
        'storyboard',
        'run',
        serve.mcp,
        '--compliance-dir',
        COMPLIANCE,
        '--id',
        'security_baseline',
        '--protocol',
        'mcp',
      ],
      cli,
    );
    const out = cli.out();
    assert.match(out, /FAIL security_baseline/);
    assert.match(out, /http_status_in: /);
    assert.match(out, /expected \[401,403\]/);
    assert.match(out, /actual {3}200/);
    assert.match(out, /source {3}universal\/security\.yaml phases\[\d+\]\.steps\[\d+\]/);
    assert.equal(code, 1);
  });

  it('says what is wrong with the command line or the suite', async () => {
    const bad = io(dir);
    assert.equal(await main(['storyboard', 'run', 'not a url', '--compliance-dir', COMPLIANCE], bad), 2);
    const missing = io(dir);
    assert.equal(await main(['storyboard', 'list', '--compliance-dir', join(dir, 'nope')], missing), 3);
    assert.match(missing.err(), /no index\.json|cannot read the compliance folder/);
    const unknown = io(dir);
    assert.equal(
      await main(
        ['storyboard', 'run', serve.mcp, '--compliance-dir', COMPLIANCE, '--id', 'no_such_storyboard'],
        unknown,
      ),
      2,
    );
    assert.match(unknown.err(), /no storyboard no_such_storyboard/);
    const vectors = io(dir);
    assert.equal(
      await main(['storyboard', 'run', serve.mcp, '--compliance-dir', COMPLIANCE, '--signing-vectors', dir], vectors),
      2,
    );
    assert.match(vectors.err(), /--signing-vectors .* has no keys\.json/);
  });
});

// A newcomer's run (issue 35): the mistakes a seller makes first get a verdict that says what to do.
describe('adcp storyboard run, as a newcomer runs it', { concurrency: 1 }, () => {
  let serve: ServeProcess;
  let dir: string;
  before(async () => {
    // A seller that asks for a bearer token and serves no comply_test_controller.
    serve = await spawnServe(['--auth-token', 'tok-newcomer-0123456789']);
    dir = mkdtempSync(join(tmpdir(), 'adcp-storyboard-newcomer-'));
  });
  after(async () => {
    await serve.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says nothing answers at the URL, exit 3, instead of grading a missing agent', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const cli = io(dir);
    const code = await main(
      ['storyboard', 'run', `http://127.0.0.1:${port}/mcp`, '--compliance-dir', COMPLIANCE, '--protocol', 'mcp'],
      cli,
    );
    assert.equal(code, 3, cli.out());
    assert.match(cli.out(), /CUT SHORT: could not discover the agent at http:\/\/127\.0\.0\.1:\d+\/mcp/);
    assert.match(cli.out(), /is the agent running/);
    assert.doesNotMatch(cli.out(), /storyboards listed|listed as harness faults|FAIL/);
  });

  it('grades no step the agent refused for want of a token, and says to give it with --auth', async () => {
    const cli = io(dir);
    const code = await main(
      ['storyboard', 'run', serve.mcp, '--compliance-dir', COMPLIANCE, '--id', 'schema_validation', '--json'],
      cli,
    );
    const report = JSON.parse(cli.out()) as RunReport;
    const storyboard = report.storyboards[0]!;
    assert.equal(storyboard.verdict, 'harness_fault');
    assert.equal(report.counts.storyboards.failed, 0, 'nothing is blamed on the agent');
    assert.equal(code, 4, 'not graded is not a pass (decision 0238)');
    const refused = storyboard.steps.filter((s) => s.verdict === 'harness_fault');
    assert.ok(refused.length > 0);
    for (const step of refused) assert.match(step.fault ?? '', /HTTP 401.*--auth TOKEN/);
    assert.ok(report.notices.some((n) => /not graded: the agent asked for credentials .*--auth TOKEN/.test(n)));
    // The summary's last line says what to do.
    const text = io(dir);
    await main(['storyboard', 'run', serve.mcp, '--compliance-dir', COMPLIANCE, '--id', 'schema_validation'], text);
    assert.match(text.out(), /verdict: not graded where the agent asked for credentials .*--auth TOKEN\)\n$/);
    // The progress line says why, never an empty detail.
    assert.match(cli.err(), /HARN schema_validation \([^)]*\): \w/);
    // With the token, the same storyboard is graded.
    const authed = io(dir);
    await main(
      [
        'storyboard',
        'run',
        serve.mcp,
        '--compliance-dir',
        COMPLIANCE,
        '--id',
        'schema_validation',
        '--auth',
        'tok-newcomer-0123456789',
        '--json',
      ],
      authed,
    );
    const graded = JSON.parse(authed.out()) as RunReport;
    assert.ok(graded.storyboards[0]!.steps.every((s) => s.fault === undefined || !/HTTP 401/.test(s.fault)));
    assert.equal(graded.notices.filter((n) => /credentials/.test(n)).length, 0);
  });

  it('adcp serve --sandbox --test-controller without --auth: seeds refused for want of the token, nothing failed', async () => {
    const sandbox = await spawnServe(['--sandbox', '--test-controller']);
    try {
      const cli = io(dir);
      const code = await main(
        [
          'storyboard',
          'run',
          sandbox.mcp,
          '--compliance-dir',
          COMPLIANCE,
          '--id',
          'idempotency',
          '--id',
          'pagination_integrity_creative_formats',
          '--json',
        ],
        cli,
      );
      const report = JSON.parse(cli.out()) as RunReport;
      assert.deepEqual(
        report.storyboards.map((s) => `${s.id} ${s.verdict}`),
        ['idempotency harness_fault', 'pagination_integrity_creative_formats harness_fault'],
      );
      assert.equal(code, 4);
      // The refused seeds say why; the steps after them are not laid at the agent's door.
      const seeds = report.storyboards.flatMap((s) => s.steps).filter((s) => s.task === 'comply_test_controller');
      assert.ok(seeds.length > 0);
      for (const seed of seeds) assert.match(seed.fault ?? '', /HTTP 401.*--auth TOKEN/);
      for (const s of report.storyboards) assert.match(s.detail ?? '', /--auth TOKEN/);
    } finally {
      await sandbox.stop();
    }
  });

  it('adcp serve --sandbox with --auth: a create refused for want of a signature is not graded', async () => {
    const token = 'tok-sandbox-0123456789abcdef';
    const sandbox = await spawnServe(['--sandbox', '--test-controller'], { env: { ADCP_SERVE_TOKENS: token } });
    try {
      const cli = io(dir);
      const args = ['storyboard', 'run', sandbox.mcp, '--compliance-dir', COMPLIANCE, '--auth', token];
      const code = await main([...args, '--id', 'sales_guaranteed', '--json'], cli);
      const report = JSON.parse(cli.out()) as RunReport;
      // The create registers a webhook with HMAC authentication: security.md, "Webhook callbacks",
      // has a seller that verifies signatures refuse it unsigned. The runner did not sign: not the agent's.
      const storyboard = report.storyboards.find((s) => s.id === 'sales_guaranteed');
      const create = storyboard?.steps.find((s) => s.step_id === 'create_media_buy');
      assert.equal(create?.verdict, 'harness_fault');
      assert.match(create?.fault ?? '', /request_signature_required.*this run does not sign.*--sign-key FILE/);
      assert.equal(storyboard?.verdict, 'harness_fault', "not the agent's failure");
      // The scenarios it requires are graded on their own; with nothing failed the run exits 4.
      assert.equal(code, report.counts.storyboards.failed > 0 ? 1 : 4);
      assert.equal(report.exit_code, code);
    } finally {
      await sandbox.stop();
    }
  });

  it('says what a storyboard without the test controller needs: the requirement, the unseeded fixtures', async () => {
    const cli = io(dir);
    await main(
      [
        'storyboard',
        'run',
        serve.mcp,
        '--compliance-dir',
        COMPLIANCE,
        '--auth',
        'tok-newcomer-0123456789',
        '--id',
        'comply_controller_mode_gate',
        '--id',
        'idempotency',
      ],
      cli,
    );
    const out = cli.out();
    assert.match(
      out,
      /n\/a {2}comply_controller_mode_gate[^\n]*\n {4}controller: the agent does not list comply_test_controller/,
    );
    assert.match(out, /note: the fixtures of idempotency were not seeded: the agent lists no comply_test_controller/);
    assert.match(out, /\n {4}fixtures not seeded: the storyboard seeds its fixtures \(test-product/);
  });
});
