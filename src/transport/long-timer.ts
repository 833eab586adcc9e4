/** The longest delay `setTimeout` holds; past it Node warns (TimeoutOverflowWarning) and fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A pending long timer; `clear()` cancels it (safe to call after it fired). */
export interface LongTimer {
  clear(): void;
}

/**
 * Calls `callback` once after `ms` milliseconds, however long: a delay past `MAX_TIMER_MS`
 * (24.8 days) is waited in chunks. Long waits are the spec's normal case (a media buy under
 * review for weeks), so `timeoutMs` values of that size must neither overflow nor fire early.
 */
export function setLongTimeout(callback: () => void, ms: number): LongTimer {
  const end = Date.now() + ms;
  let timer: ReturnType<typeof setTimeout>;
  const arm = (remaining: number): void => {
    timer = setTimeout(
      () => {
        const left = end - Date.now();
        if (remaining > MAX_TIMER_MS && left > 0) arm(left);
        else callback();
      },
      Math.max(0, Math.min(remaining, MAX_TIMER_MS)),
    );
  };
  arm(ms);
  return {
    clear() {
      clearTimeout(timer);
    },
  };
}
