/**
 * Resolves once `busy()` reaches 0, `graceMs` has passed, or `hurry` aborts, whichever is first;
 * says which. Polls every 25 ms: a drain happens once per process life, and polling needs no
 * hook in every place that starts work.
 */
export function waitForDrain(
  busy: () => number,
  graceMs: number,
  hurry: AbortSignal,
): Promise<'drained' | 'timeout' | 'hurried'> {
  const deadline = Date.now() + graceMs;
  return new Promise((resolve) => {
    const tick = () => {
      if (hurry.aborted) resolve('hurried');
      else if (busy() === 0) resolve('drained');
      else if (Date.now() >= deadline) resolve('timeout');
      else setTimeout(tick, Math.min(25, Math.max(1, deadline - Date.now())));
    };
    tick();
  });
}
