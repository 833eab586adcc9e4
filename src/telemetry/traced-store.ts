import { STORE_TARGET } from '../core/store-target.js';
import { meters } from './metrics.js';
import { activeTracer, otelInstalled } from './otel.js';
import { addActiveEvent } from './span.js';

const TRACED = Symbol('adcp-wire.traced-store');

/**
 * Wraps a store so that every method call is timed into `adcp.store.duration` (seconds, by
 * `adcp.store` and `adcp.store.operation`) and noted as an event `adcp.store.{operation}` on the
 * span active at the time (with its duration and whether it failed). Keys, values and records
 * are never recorded. Without `@opentelemetry/api` the store comes back untouched.
 */
export function traceStore<T extends object>(store: T, name: string): T {
  if (!otelInstalled() || (store as { [TRACED]?: true })[TRACED] === true) return store;
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key) {
      if (key === TRACED) return true;
      if (key === STORE_TARGET) return target;
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function' || typeof key === 'symbol' || key === 'constructor') return value;
      let fn = wrapped.get(key);
      if (fn === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        fn = (...args: unknown[]) => timed(name, key, () => method.apply(target, args));
        wrapped.set(key, fn);
      }
      return fn;
    },
  });
}

function timed(store: string, operation: string, run: () => unknown): unknown {
  // No meter provider and no tracer registered (yet): nothing to time.
  if (meters() === undefined && activeTracer() === undefined) return run();
  const started = performance.now();
  const done = (failed: boolean) => {
    const seconds = (performance.now() - started) / 1000;
    meters()?.storeDuration.record(seconds, { 'adcp.store': store, 'adcp.store.operation': operation });
    addActiveEvent(`adcp.store.${operation}`, {
      'adcp.store': store,
      'adcp.store.duration_ms': seconds * 1000,
      'adcp.store.failed': failed ? true : undefined,
    });
  };
  let out: unknown;
  try {
    out = run();
  } catch (error) {
    done(true);
    throw error;
  }
  if (out instanceof Promise)
    return out.then(
      (value: unknown) => {
        done(false);
        return value;
      },
      (error: unknown) => {
        done(true);
        throw error;
      },
    );
  done(false);
  return out;
}
