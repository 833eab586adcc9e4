import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { main } from '../../src/cli/main.js';
import { recordingIo } from '../cli/fake-io.js';

describe('adcp demo (in-process)', () => {
  it('plays every step to success, prints the summary, cleans up and exits 0', async () => {
    const io = recordingIo();
    const code = await main(['demo'], io);
    const out = io.out();
    assert.equal(code, 0, `${out}\n${io.err()}`);
    const summary = out.slice(out.indexOf('Summary\n'));
    for (const step of [
      'discover',
      'get_products \\(MCP\\)',
      'get_products \\(A2A\\)',
      'create_media_buy \\+ webhook',
      'MCP Task-augmented call \\(2025 era\\)',
      'rate-limited call',
    ]) {
      assert.match(summary, new RegExp(`^\\d  ${step} .*  ok  +\\d+\\.\\d\\d s$`, 'm'), step);
    }
    assert.doesNotMatch(summary, /FAIL/);
    assert.match(summary, /All 6 steps did what they should/);
    const dir = /state +(\S+)/.exec(out)?.[1] ?? '';
    assert.match(dir, /adcp-demo-/);
    assert.equal(existsSync(dir), false, 'the temporary folder is removed');
    assert.match(out, /webhook .*completed +create_media_buy .*\[rfc9421\]/);
    assert.match(out, /MCP era modern \(2026-07-28\), extensions: io\.modelcontextprotocol\/tasks/);
  });

  it('plays the same buyer scenarios on the 2025 era with --mcp-era legacy', async () => {
    const io = recordingIo();
    const code = await main(['demo', '--mcp-era', 'legacy'], io);
    const out = io.out();
    assert.equal(code, 0, `${out}\n${io.err()}`);
    assert.match(out, /MCP era legacy \(2025-\d\d-\d\d\), extensions: none/);
    assert.match(out, /All 6 steps did what they should/);
    assert.doesNotMatch(out, /FAIL/);
  });

  it('refuses an era it does not know, exit 2', async () => {
    const io = recordingIo();
    assert.equal(await main(['demo', '--mcp-era', 'auto'], io), 2);
    assert.match(io.err(), /--mcp-era takes modern or legacy, not 'auto'/);
  });

  it('stops everything, removes its folder and exits 130 when interrupted mid-way', async () => {
    const controller = new AbortController();
    const io = recordingIo();
    io.signal = controller.signal;
    const running = main(['demo'], io);
    for (let i = 0; i < 400 && !io.out().includes('[2/6]'); i++) await new Promise((r) => setTimeout(r, 25));
    controller.abort();
    assert.equal(await running, 130);
    const dir = /state +(\S+)/.exec(io.out())?.[1] ?? '';
    assert.match(dir, /adcp-demo-/);
    assert.equal(existsSync(dir), false);
    assert.match(io.err(), /interrupted; stopped the seller and the webhook receiver and removed/);
    assert.doesNotMatch(io.out(), /\[6\/6\]/);
  });
});
