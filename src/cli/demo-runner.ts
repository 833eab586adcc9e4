import { printable } from './args.js';

/** What one demo step saw: a one-line answer, and whether it was what the step expects. */
export interface StepCheck {
  ok: boolean;
  got: string;
}

/** One step of the demo: what it does, what should happen, and the code that checks it. */
export interface DemoStep {
  title: string;
  expect: string;
  /** Runs the step; `say` adds a transcript line. Throwing counts as a failed step. */
  run(say: (line: string) => void): Promise<StepCheck>;
}

export interface StepOutcome extends StepCheck {
  title: string;
  expect: string;
  ms: number;
}

/**
 * Runs the steps in order (each bounded by `stepTimeoutMs`), reporting each as it starts and
 * ends. A failed step does not stop the next ones: the summary shows every failure at once.
 */
export async function runSteps(
  steps: readonly DemoStep[],
  hooks: { start(index: number, step: DemoStep): void; say: (line: string) => void; end(outcome: StepOutcome): void },
  options: { stepTimeoutMs: number; now?: () => number; signal?: AbortSignal },
): Promise<StepOutcome[]> {
  const now = options.now ?? Date.now;
  const outcomes: StepOutcome[] = [];
  for (const [index, step] of steps.entries()) {
    if (options.signal?.aborted === true) break;
    hooks.start(index, step);
    const started = now();
    let check: StepCheck;
    try {
      check = await withTimeout(step.run(hooks.say), options.stepTimeoutMs, step.title, options.signal);
    } catch (error) {
      check = { ok: false, got: `error: ${printable(error instanceof Error ? error.message : String(error))}` };
    }
    const outcome = { title: step.title, expect: step.expect, ms: now() - started, ...check };
    outcomes.push(outcome);
    hooks.end(outcome);
  }
  return outcomes;
}

async function withTimeout<T>(work: Promise<T>, ms: number, title: string, signal?: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${title} took longer than ${ms / 1000} s`)), ms);
    onAbort = () => reject(new Error('interrupted'));
    if (signal?.aborted === true) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  work.catch(() => undefined); // a step abandoned by a timeout or an interrupt may still fail later
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
}
