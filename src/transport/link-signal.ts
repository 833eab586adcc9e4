/**
 * A signal that aborts when `parent` (the caller's, optional) or `other` (the transport's close)
 * does, with that signal's reason. `dispose()` removes the listeners once the call is over, so
 * long-lived signals do not collect one listener per request.
 */
export function linkSignal(
  parent: AbortSignal | undefined,
  other: AbortSignal,
): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const sources = parent === undefined ? [other] : [parent, other];
  const onAbort = (event: Event): void => controller.abort((event.target as AbortSignal).reason);
  for (const source of sources) {
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    source.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    dispose() {
      for (const source of sources) source.removeEventListener('abort', onAbort);
    },
  };
}
