/**
 * The key under which a wrapped store (the telemetry's timing proxy) hands out the store it wraps,
 * so code that recognises a store by identity (a PostgreSQL store's shared database) still does.
 */
export const STORE_TARGET: unique symbol = Symbol.for('adcp-wire.store-target');

/** The store behind any wrapper, or the store itself. */
export function storeTarget<T extends object>(store: T): T {
  const inner = (store as { [STORE_TARGET]?: T })[STORE_TARGET];
  return inner === undefined ? store : inner;
}
