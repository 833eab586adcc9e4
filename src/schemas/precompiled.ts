import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import type { ModuleRoot } from './validator-modules.js';

const require = createRequire(import.meta.url);

/**
 * Where `npm run build` writes the validators it compiled ahead of time, one folder per release
 * (`dist/schemas/compiled/3.1.19/`); absent when running from the sources. Addressed from the
 * folder above, so the same code bundled into `dist/client/` (scripts/bundle-client.mjs) finds it.
 */
export const PRECOMPILED_DIR = fileURLToPath(new URL('../schemas/compiled/', import.meta.url));

/** `compiled.json` of a release folder: what the build compiled, from which manifest. */
export interface PrecompiledIndex {
  version: string;
  /** The `SchemaBundle.fingerprint` of the tree compiled from. */
  fingerprint: string;
  /** Schema path inside the release -> module and exported function. */
  roots: Record<string, ModuleRoot>;
  /**
   * The manifest's `tools`, reduced to what `SchemaBundle` reads (protocol, `mutating`, request,
   * response and async schemas), so a bundle whose manifest has this fingerprint need not parse
   * the whole manifest (110 KB with the error codes and specialisms) on its first use.
   */
  tools?: Record<string, Record<string, unknown>>;
}

const indexes = new Map<string, PrecompiledIndex | null>();

function readIndex(version: string, dir = PRECOMPILED_DIR): PrecompiledIndex | undefined {
  const key = join(dir, version);
  let found = indexes.get(key);
  if (found === undefined) {
    const file = join(key, 'compiled.json');
    found = null;
    if (existsSync(file)) {
      try {
        found = JSON.parse(readFileSync(file, 'utf8')) as PrecompiledIndex;
      } catch {
        found = null;
      }
    }
    indexes.set(key, found);
  }
  return found ?? undefined;
}

/**
 * The tool table the build took from the manifest named `fingerprint`, or `undefined` when the
 * build compiled no such release from that manifest (then the caller parses the manifest).
 */
export function precompiledTools(
  version: string,
  fingerprint: string,
  dir = PRECOMPILED_DIR,
): Record<string, Record<string, unknown>> | undefined {
  const index = readIndex(version, dir);
  return index?.fingerprint === fingerprint ? index.tools : undefined;
}

/**
 * The ahead-of-time validator of `path` in a release, when the build compiled that release from
 * the same manifest (releases are immutable, so the manifest's digest names the tree); otherwise
 * `undefined` and the caller compiles at run time.
 */
export function loadPrecompiled(version: string, fingerprint: string, path: string): ValidateFunction | undefined {
  const index = readIndex(version);
  if (index === undefined || index.fingerprint !== fingerprint) return undefined;
  const root = index.roots[path];
  if (root === undefined) return undefined;
  const module = require(join(PRECOMPILED_DIR, version, root.module)) as Record<string, ValidateFunction | undefined>;
  return module[root.name];
}
