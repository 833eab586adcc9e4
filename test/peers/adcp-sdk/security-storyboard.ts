/**
 * Runs the official `security` storyboard (`../shared/compliance/3.1.19/universal/security.yaml`)
 * with the incumbent SDK's storyboard runner against an agent URL, as a compliance runner would
 * with a test kit that declares `auth.api_key` (plain http allowed: the agent is on loopback).
 */
import { readFileSync } from 'node:fs';
import { parseStoryboard, runStoryboard } from '@adcp/sdk/testing';

export interface SecurityStepOutcome {
  phase: string;
  step: string;
  passed: boolean;
  skipped: boolean;
  error?: string;
}

export async function runSecurityStoryboard(
  agentUrl: string,
  storyboardFile: string,
  apiKey: string,
): Promise<{ overallPassed: boolean; steps: SecurityStepOutcome[] }> {
  const storyboard = parseStoryboard(readFileSync(storyboardFile, 'utf8'));
  const result = await runStoryboard(agentUrl, storyboard, {
    protocol: 'mcp',
    allow_http: true,
    auth: { type: 'bearer', token: apiKey },
    test_kit: { auth: { api_key: apiKey, probe_task: 'list_creatives' } },
  });
  const steps: SecurityStepOutcome[] = [];
  for (const phase of result.phases) {
    for (const step of phase.steps) {
      steps.push({
        phase: phase.phase_id,
        step: step.step_id,
        passed: step.passed,
        skipped: step.skipped === true,
        ...(step.error === undefined ? {} : { error: String(step.error) }),
      });
    }
  }
  return { overallPassed: result.overall_passed, steps };
}
