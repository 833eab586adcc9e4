// test-timeout-ms: 1500000
// Issue 31, "Done when": the official runner (@adcp/sdk 6.11, test/peers/adcp-sdk) grades
// `adcp serve --sandbox --test-controller` on every storyboard our runner selects from the
// seller's capabilities (universal, the media_buy baseline and its scenarios, the claimed
// sales-guaranteed and sales-non-guaranteed specialisms and theirs), over MCP and over A2A, each
// wire against a seller of its own, the storyboards one after the other on that seller (state
// carries over, as in a grading run). The runner presents its bearer token (the sandbox's
// composition rule: an authenticated unsigned request is not refused for a missing signature).
// A failed step passes this test only when it is a recorded defect of the runner
// (official-runner-defects.ts, each with its decision record) or listed in SELLER_GAPS below
// with its owner; anything else fails it. Passed steps are a ratchet per wire.
// Storyboards are read from ../shared at run time.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdcpClient } from '../../src/client/index.js';
import type { JsonObject } from '../../src/core/types.js';
import { loadComplianceDir, selectStoryboards, type Storyboard } from '../../src/storyboard/index.js';
import { capabilityGate } from '../../src/storyboard/run.js';
import { killChild, spawnServe, type ServeProcess } from '../interop/helpers/spawn-serve.js';
import { theirDefect, type FailedValidation } from './official-runner-defects.js';

const SHARED = fileURLToPath(new URL('../../../shared/', import.meta.url));
const COMPLIANCE = `${SHARED}compliance/3.1.19/`;
const CHILD = fileURLToPath(new URL('./official-runner-child.ts', import.meta.url));

/** `storyboard/phase/step` -> why the seller still fails it, and who is building the fix. */
const SELLER_GAPS: Record<string, string> = {};
/** Steps the official runner passes over each wire in the storyboards the seller must pass (a ratchet: never fewer). */
// Measured 149 (MCP) and 148 (A2A) in each of 4 runs at 635edcf; 108 and 107 since seeded
// products keep a fixture's format_options (2b3e166): one format_options-only product in every
// later get_products answer fails N there and skips what follows.
const PASSED_AT_LEAST = { mcp: 104, a2a: 104 };

interface RunnerStep {
  step_id: string;
  task?: string;
  passed?: boolean;
  skipped?: boolean;
  skip_reason?: string;
  error?: string;
  validations?: (FailedValidation & { passed?: boolean; error?: string; description?: string })[];
}
interface RunnerResult {
  storyboard_id?: string;
  file?: string;
  harness_error?: string;
  phases?: { phase_id: string; steps?: RunnerStep[] }[];
}

const kitKey = (kit: string) =>
  /api_key:\s*"([^"]+)"/.exec(readFileSync(`${COMPLIANCE}test-kits/${kit}.yaml`, 'utf8'))![1]!;
/** The buyer test kits whose `auth.api_key` the storyboards send (`auth: { from_test_kit: true }`, security_baseline). */
const BUYER_KITS = ['acme-outdoor', 'nova-motors', 'bistro-oranje', 'osei-natural', 'summit-foods'];

/**
 * `adcp serve` knowing the runner's token and the buyer kits' keys as one sandbox principal (one
 * buyer: state carries over between them), and the live kit's key as a live principal
 * (comply-controller-mode-gate).
 */
async function serve(): Promise<ServeProcess & { token: string; refusals: string[] }> {
  const token = `sandbox-${randomBytes(16).toString('hex')}`;
  const tokens = [token, ...BUYER_KITS.map(kitKey)].map((t) => `${t}=sandbox-runner`);
  // The runner's principal is onboarded passthrough-only (billing_gate_dispatch's test kit).
  const args = ['--sandbox', '--test-controller', '--live-principal', 'acme-live', '--verbose'];
  const served = await spawnServe([...args, '--passthrough-principal', 'sandbox-runner'], {
    env: { ADCP_SERVE_TOKENS: [...tokens, `${kitKey('acme-outdoor-live')}=acme-live`].join(',') },
  });
  return { ...served, token, refusals: refusalsOf(served) };
}

/**
 * The seller's failed answers as `--verbose` prints them (`... response  create_media_buy  failed
 * INVALID_REQUEST ...`), the last 200: they name the seller's error code where the runner hides it (A, E).
 */
function refusalsOf(served: ServeProcess): string[] {
  const refusals: string[] = [];
  let partial = '';
  served.child.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (/\sresponse\s.*\sfailed\s/.test(line)) refusals.push(line.trim());
    refusals.splice(0, Math.max(0, refusals.length - 200));
  });
  return refusals;
}

/** The storyboards our runner selects from the agent's capabilities (pre-graded ones left out), and those capabilities. */
async function selection(
  url: string,
  protocol: 'mcp' | 'a2a',
  token: string,
): Promise<{ storyboards: Storyboard[]; capabilities: JsonObject }> {
  const client = new AdcpClient({ url, protocol, auth: token });
  try {
    const found = await client.discover({ timeoutMs: 60_000 });
    const capabilities = found.capabilities?.status === 'completed' ? (found.capabilities.data as JsonObject) : {};
    const storyboards = selectStoryboards(loadComplianceDir(COMPLIANCE), capabilities)
      .filter((s) => s.preGraded === undefined)
      .map((s) => s.storyboard);
    return { storyboards, capabilities };
  } finally {
    await client.close();
  }
}

/**
 * Why a step may fail in a storyboard or phase whose `requires_capability` the agent does not
 * meet: the official runner runs it anyway (decision 0205, I; 0224, C).
 */
function gateDefect(storyboard: Storyboard | undefined, phaseId: string, capabilities: JsonObject): string | undefined {
  if (storyboard === undefined) return undefined;
  if (capabilityGate(storyboard.doc['requires_capability'], capabilities) !== undefined) return 'I (0205)';
  const phases = Array.isArray(storyboard.doc['phases']) ? (storyboard.doc['phases'] as JsonObject[]) : [];
  const phase = phases.find((p) => p['id'] === phaseId);
  return phase !== undefined && capabilityGate(phase['requires_capability'], capabilities) !== undefined
    ? 'C (0224)'
    : undefined;
}

/** Runs the files in a child process (official-runner-child.ts), bounded by `timeoutMs`. */
async function runOfficial(
  job: { agentUrl: string; protocol: 'mcp' | 'a2a'; token: string; compliance: string; files: string[] },
  timeoutMs: number,
): Promise<RunnerResult[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'adcp-official-'));
  const out = path.join(dir, 'results.json');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify({ ...job, out })], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr?.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
    const timer = setTimeout(() => void killChild(child), timeoutMs);
    await new Promise((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
    let results: RunnerResult[];
    try {
      results = JSON.parse(readFileSync(out, 'utf8')) as RunnerResult[];
    } catch {
      throw new Error(`the official runner wrote no results: ${err}`);
    }
    assert.equal(results.length, job.files.length, `the official runner stopped early: ${err}`);
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the official runner against adcp serve --sandbox --test-controller', { concurrency: 2 }, () => {
  const started: ServeProcess[] = [];
  after(async () => {
    for (const seller of started) await seller.stop();
  });

  for (const protocol of ['mcp', 'a2a'] as const) {
    it(`over ${protocol}: every failed step is a recorded runner defect or a listed seller gap`, async () => {
      const seller = await serve();
      started.push(seller);
      const url = protocol === 'mcp' ? seller.mcp : seller.a2a;
      const { storyboards, capabilities } = await selection(url, protocol, seller.token);
      assert.ok(storyboards.length >= 60, `${storyboards.length} storyboards selected`);
      const byId = new Map(storyboards.map((s) => [s.id, s]));
      const files = storyboards.map((s) => `${COMPLIANCE}${s.file}`);
      const job = { agentUrl: url, protocol, token: seller.token, compliance: COMPLIANCE, files };
      const results = await runOfficial(job, 1_200_000);
      // Steps of storyboards the seller's capabilities rule out (I) are counted apart: the runner
      // runs them anyway, and what they pass depends on which seeded product sorts first.
      const counts = { passed: 0, failed: 0, skipped: 0, outside_gate: 0 };
      const unexpected: string[] = [];
      const explained = new Map<string, number>();
      for (const result of results) {
        assert.equal(result.harness_error, undefined, `${result.file}: ${result.harness_error}`);
        for (const phase of result.phases ?? []) {
          for (const step of phase.steps ?? []) {
            const storyboard = byId.get(String(result.storyboard_id));
            const ruledOut = capabilityGate(storyboard?.doc['requires_capability'], capabilities) !== undefined;
            if (step.skipped === true) counts.skipped++;
            else if (step.passed === true) counts[ruledOut ? 'outside_gate' : 'passed']++;
            else {
              counts.failed++;
              const key = `${result.storyboard_id}/${phase.phase_id}/${step.step_id}`;
              // The step's error, or else its first failed validation, says why it failed.
              const failed = (step.validations ?? []).find((v) => v.passed === false);
              const reason = step.error ?? failed?.error ?? failed?.description ?? 'failed';
              const defect = theirDefect(key, 'failed', reason, failed);
              const why =
                gateDefect(byId.get(String(result.storyboard_id)), phase.phase_id, capabilities) ??
                (defect === undefined ? SELLER_GAPS[key] : `${defect.letter} (${defect.decision})`);
              if (why === undefined) {
                // What the seller answered that tool when it refused it, for the failure message.
                const answered = seller.refusals.filter((line) => line.includes(` ${step.task ?? '?'} `)).slice(-3);
                unexpected.push(
                  `${key}: ${reason.slice(0, 300)}; the seller's last refusals of it: ${answered.join(' | ') || 'none'}`,
                );
              } else explained.set(why, (explained.get(why) ?? 0) + 1);
            }
          }
        }
      }
      process.stdout.write(
        `# ${protocol}: ${JSON.stringify(counts)}; explained: ${JSON.stringify(Object.fromEntries(explained))}\n`,
      );
      assert.deepEqual(unexpected, [], `failed steps over ${protocol} that are neither a recorded defect nor listed`);
      assert.ok(
        counts.passed >= PASSED_AT_LEAST[protocol],
        `${counts.passed} steps passed, fewer than ${PASSED_AT_LEAST[protocol]}`,
      );
    });
  }
});
