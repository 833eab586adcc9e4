import { createRequire } from 'node:module';

/** The database drivers: optional peer dependencies, loaded when a store first needs one. */
export type PeerDriver = 'better-sqlite3' | 'pg';

const INSTALL: Record<PeerDriver, string> = {
  'better-sqlite3': 'npm install better-sqlite3@^12',
  pg: 'npm install pg@^8',
};

const require = createRequire(import.meta.url);

/** Whether a database driver can be found (installed), without loading it. */
export function peerInstalled(name: PeerDriver, resolve: (id: string) => string = require.resolve): boolean {
  try {
    resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads a database driver for `user` (the store or feature that needs it). A driver that is not
 * installed throws an Error with `code: 'missing_peer_dependency'` and a message naming the
 * package and the command that installs it; one that is installed but fails to load (a native
 * build for another Node) says so, with the driver's error as `cause`.
 */
export function requirePeer<T>(name: PeerDriver, user: string, load: (id: string) => unknown = require): T {
  try {
    return load(name) as T;
  } catch (error) {
    const missing =
      (error as { code?: unknown })?.code === 'MODULE_NOT_FOUND' &&
      String((error as { message?: unknown }).message).includes(`'${name}'`);
    const message = missing
      ? `${user} needs the database driver '${name}', an optional peer dependency of adcp-wire that is not installed: ${INSTALL[name]}`
      : `${user} could not load the database driver '${name}' (${String((error as Error)?.message ?? error).split('\n')[0]}); reinstall it: ${INSTALL[name]}`;
    throw Object.assign(new Error(message, { cause: error }), {
      code: missing ? 'missing_peer_dependency' : 'peer_dependency_failed',
      packageName: name,
    });
  }
}
