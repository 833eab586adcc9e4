/**
 * Checklists whose stores may answer at once or later (a replay cache in memory or in
 * PostgreSQL): written once as a generator that `yield* wait(x)`s each store's answer, run
 * synchronously while every answer is already there, and asynchronously from the first promise
 * on. A verifier whose key source, revocation list and replay cache are in memory then costs no
 * promise and no microtask per request.
 */

/** Inside a checklist generator: `yield* wait(x)` is x's value, awaited only when x is a promise. */
export function* wait<T>(value: T | PromiseLike<T>): Generator<T | PromiseLike<T>, T, unknown> {
  // `runMaybeAsync` sends back exactly the value yielded, awaited when it was a promise.
  return (yield value) as T;
}

/** Runs `steps`: its result at once when nothing it waited on was a promise, else a promise of it. */
export function runMaybeAsync<T>(steps: Generator<unknown, T, unknown>): T | Promise<T> {
  let step = steps.next();
  while (step.done !== true) {
    if (isPromiseLike(step.value)) return continueAsync(steps, step.value);
    step = steps.next(step.value);
  }
  return step.value;
}

async function continueAsync<T>(steps: Generator<unknown, T, unknown>, first: PromiseLike<unknown>): Promise<T> {
  let pending: unknown = first;
  for (;;) {
    let step: IteratorResult<unknown, T>;
    try {
      // A rejection is thrown into the generator at its `yield`, where its own try/catch sees it.
      step = steps.next(isPromiseLike(pending) ? await pending : pending);
    } catch (error) {
      step = steps.throw(error);
    }
    if (step.done === true) return step.value;
    pending = step.value;
  }
}

/** Whether `value` is a thenable (a store's asynchronous answer). */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}
