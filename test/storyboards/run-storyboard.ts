import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The incumbent SDK's storyboard runner (test peer): a black-box grader of our seller. */
const RUNNER = fileURLToPath(new URL('../peers/adcp-sdk/node_modules/@adcp/sdk/bin/adcp.js', import.meta.url));

export interface StoryboardOutcome {
  passed: number;
  failed: number;
  skipped: number;
  /** `phase/step: reason` of every failed step. */
  failures: string[];
  /** Every step the runner reported: `phase/step` -> passed, failed or skipped (with its reason). */
  steps: Map<string, { verdict: 'passed' | 'failed' | 'skipped'; reason: string }>;
}

interface RunnerStep {
  step_id: string;
  passed?: boolean;
  skipped?: boolean;
  skip_reason?: string;
  error?: string;
  validations?: { passed?: boolean; check?: string; error?: string; description?: string }[];
}

/**
 * Runs one storyboard file against an agent URL with the runner's CLI (`storyboard run --file
 * --json --webhook-receiver`, a loopback receiver for the webhook steps), bounded by `timeoutMs`.
 */
export function runStoryboard(
  agentUrl: string,
  file: string,
  protocol: 'mcp' | 'a2a',
  timeoutMs: number,
): Promise<StoryboardOutcome> {
  const args = [RUNNER, 'storyboard', 'run', agentUrl, '--file', file, '--protocol', protocol];
  const child = spawn(process.execPath, [...args, '--json', '--webhook-receiver'], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', () => {
      clearTimeout(timer);
      try {
        resolve(readOutcome(out));
      } catch (error) {
        reject(new Error(`storyboard runner gave no result for ${file} (${protocol})`, { cause: error }));
      }
    });
  });
}

function readOutcome(out: string): StoryboardOutcome {
  const report = JSON.parse(out.slice(out.indexOf('{'))) as {
    passed_count: number;
    failed_count: number;
    skipped_count: number;
    phases?: { phase_id: string; steps?: RunnerStep[] }[];
  };
  const failures: string[] = [];
  const steps: StoryboardOutcome['steps'] = new Map();
  for (const phase of report.phases ?? []) {
    for (const step of phase.steps ?? []) {
      const key = `${phase.phase_id}/${step.step_id}`;
      if (step.skipped === true) steps.set(key, { verdict: 'skipped', reason: step.skip_reason ?? '' });
      if (step.passed === true && step.skipped !== true) steps.set(key, { verdict: 'passed', reason: '' });
      if (step.passed === true || step.skipped === true) continue;
      const failed = (step.validations ?? []).find((v) => v.passed === false);
      const reason = step.error ?? failed?.error ?? failed?.description ?? 'failed';
      failures.push(`${key}: ${reason.slice(0, 200)}`);
      steps.set(key, { verdict: 'failed', reason: reason.slice(0, 300) });
    }
  }
  return {
    passed: report.passed_count,
    failed: report.failed_count,
    skipped: report.skipped_count,
    failures,
    steps,
  };
}
