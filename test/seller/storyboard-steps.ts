import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** One step of an official compliance storyboard, as far as these tests read it. */
export interface StoryboardStep {
  id: string;
  task: string;
  expectError: boolean;
  /** The codes a `check: error_code` accepts (empty: any code). */
  allowedCodes: string[];
  /** The request, `$generate:uuid_v4[#alias]` resolved (one UUID per alias). */
  request: Record<string, unknown>;
}

const STORYBOARDS = new URL('../../../shared/compliance/3.1.19/universal/', import.meta.url);

/** The steps of `universal/<name>.yaml` that carry a `sample_request`, read from ../shared at run time. */
export function storyboardSteps(name: string): StoryboardStep[] {
  const doc = parse(readFileSync(new URL(`${name}.yaml`, STORYBOARDS), 'utf8')) as {
    phases: { steps?: Record<string, unknown>[] }[];
  };
  const aliases = new Map<string, string>();
  const resolve = (text: string) =>
    text.replace(/"\$generate:uuid_v4(#[^"]*)?"/g, (_, alias: string | undefined) => {
      if (alias === undefined) return JSON.stringify(randomUUID());
      if (!aliases.has(alias)) aliases.set(alias, randomUUID());
      return JSON.stringify(aliases.get(alias));
    });
  const steps: StoryboardStep[] = [];
  for (const phase of doc.phases) {
    for (const step of phase.steps ?? []) {
      if (step.sample_request === undefined) continue;
      const checks = (step.validations ?? []) as { check: string; value?: string; allowed_values?: string[] }[];
      const codeCheck = checks.find((c) => c.check === 'error_code');
      steps.push({
        id: String(step.id),
        task: String(step.task),
        expectError: step.expect_error === true,
        allowedCodes: codeCheck?.allowed_values ?? (codeCheck?.value === undefined ? [] : [codeCheck.value]),
        request: JSON.parse(resolve(JSON.stringify(step.sample_request))) as Record<string, unknown>,
      });
    }
  }
  return steps;
}
