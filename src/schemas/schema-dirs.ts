import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PRECOMPILED_DIR } from './precompiled.js';
import { parseBundleVersion } from './release.js';

/**
 * Where the sync command keeps downloaded releases: `ADCP_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/adcp-wire`, else `~/.cache/adcp-wire`; schemas under `schemas/{version}/`.
 */
export function schemaCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env['ADCP_CACHE_DIR'] ??
    (env['XDG_CACHE_HOME'] === undefined
      ? join(homedir(), '.cache', 'adcp-wire')
      : join(env['XDG_CACHE_HOME'], 'adcp-wire'));
  return join(base, 'schemas');
}

/**
 * The folders searched for releases, first match wins: `ADCP_SCHEMAS_DIR` when set; then the
 * sync cache; last, the validators the package's build compiled (they validate offline, without
 * a schema folder). Nothing else: the library never looks for a folder beside itself, where an
 * installed package would find whatever a dependency put there (docs/decisions/0090).
 */
export function schemaSearchPath(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  const configured = env['ADCP_SCHEMAS_DIR'];
  if (configured !== undefined && configured !== '') dirs.push(configured);
  dirs.push(schemaCacheDir(env));
  if (existsSync(PRECOMPILED_DIR)) dirs.push(PRECOMPILED_DIR);
  return dirs;
}

/** One release found on disk. */
export interface ReleaseLocation {
  /** Bundle version (`3.1.19`). */
  version: string;
  /** The folder holding its `manifest.json`. */
  dir: string;
}

/** Every release (a folder named by a bundle version with a `manifest.json`) in the search path. */
export function findReleases(dirs: readonly string[] = schemaSearchPath()): ReleaseLocation[] {
  const found = new Map<string, string>();
  for (const root of dirs) {
    let names: string[];
    try {
      names = readdirSync(root);
    } catch {
      continue;
    }
    for (const name of names) {
      if (found.has(name) || parseBundleVersion(name) === undefined) continue;
      if (existsSync(join(root, name, 'manifest.json'))) found.set(name, join(root, name));
    }
  }
  return [...found].map(([version, dir]) => ({ version, dir }));
}
