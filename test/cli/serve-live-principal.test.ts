// `adcp serve --test-controller --live-principal P`: the comply-controller-mode-gate storyboard's step
// (../shared/compliance/3.1.19/universal/comply-controller-mode-gate.yaml, read at run time) sent with
// the live test kit's API key (test-kits/acme-outdoor-live.yaml) over MCP and A2A: the live principal
// gets FORBIDDEN before any scenario runs; a sandbox principal on the same seller is dispatched.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { main } from '../../src/cli/main.js';
import { spawnServe, type ServeProcess } from '../interop/helpers/spawn-serve.js';
import { storyboardSteps } from '../seller/storyboard-steps.js';
import { recordingIo } from './fake-io.js';

const KIT = new URL('../../../shared/compliance/3.1.19/test-kits/acme-outdoor-live.yaml', import.meta.url);
const liveKey = (parse(readFileSync(KIT, 'utf8')) as { auth: { api_key: string } }).auth.api_key;
const SANDBOX_KEY = `sandbox_${randomBytes(12).toString('hex')}`;
const [step] = storyboardSteps('comply-controller-mode-gate');

type Json = Record<string, unknown>;

async function call(url: string, protocol: 'mcp' | 'a2a', token: string, request: Json): Promise<Json> {
  const io = recordingIo();
  const code = await main(
    ['call', url, 'comply_test_controller', JSON.stringify(request), '--json', '--protocol', protocol, '--auth', token],
    io,
  );
  assert.equal(code, 0, io.err());
  return (JSON.parse(io.out()) as { data: Json }).data;
}

describe('adcp serve --live-principal (comply-controller-mode-gate)', () => {
  let serve: ServeProcess;
  let urls: Record<'mcp' | 'a2a', string>;
  before(async () => {
    serve = await spawnServe([
      '--test-controller',
      '--auth-token',
      `${liveKey}=acme-live`,
      '--auth-token',
      `${SANDBOX_KEY}=acme`,
      '--live-principal',
      'acme-live',
    ]);
    urls = { mcp: serve.mcp, a2a: `${serve.mcp.slice(0, -'/mcp'.length)}/a2a` };
  });
  after(async () => {
    await serve?.stop();
  });

  it('reads the storyboard step: force_creative_status with a live-mode account', () => {
    assert.equal(step?.task, 'comply_test_controller');
    assert.equal(step?.request.scenario, 'force_creative_status');
  });

  for (const protocol of ['mcp', 'a2a'] as const) {
    it(`${protocol}: refuses the live principal with FORBIDDEN and echoes the context`, async () => {
      const answer = await call(urls[protocol], protocol, liveKey, step!.request);
      assert.equal(answer.success, false);
      assert.equal(answer.error, 'FORBIDDEN');
      assert.deepEqual(answer.context, step!.request.context);
    });

    it(`${protocol}: dispatches the same request for a sandbox principal (NOT_FOUND: no such creative)`, async () => {
      const answer = await call(urls[protocol], protocol, SANDBOX_KEY, step!.request);
      assert.equal(answer.success, false);
      assert.equal(answer.error, 'NOT_FOUND');
    });
  }

  it('refuses --live-principal without --test-controller, or naming a principal no token has', async () => {
    for (const args of [
      ['--auth-token', `${SANDBOX_KEY}=acme`, '--live-principal', 'acme'],
      ['--test-controller', '--auth-token', `${SANDBOX_KEY}=acme`, '--live-principal', 'acme-lvie'],
    ]) {
      const io = recordingIo();
      assert.equal(await main(['serve', '--port', '0', ...args], io), 2);
      assert.match(io.err(), /--live-principal/);
      assert.doesNotMatch(io.err(), new RegExp(SANDBOX_KEY));
    }
  });
});
