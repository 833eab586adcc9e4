import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { parse } from 'yaml';
import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';

/**
 * One release's compliance suite (the tarball's `compliance/` folder): `index.json`, the
 * storyboards under `universal/`, `protocols/` and `specialisms/` (YAML) and the runner's
 * `test-kits/`. Read from a folder the user names or from a verified release tarball; the
 * library never looks anywhere by itself.
 */
export interface ComplianceRelease {
  /** `published_version` of `index.json` (`3.1.19`). */
  version: string;
  /** Where it was read from (a folder, or the tarball). */
  source: string;
  index: JsonObject;
  /** Every storyboard (a YAML document with `phases`), by its `id`. */
  storyboards: Map<string, Storyboard>;
  /** Test kits by their path relative to the compliance root (`test-kits/acme-outdoor.yaml`). */
  testKits: Map<string, JsonObject>;
  /** Any other file of the folder, by relative path (test vectors), read on demand. */
  readFile(relativePath: string): string | undefined;
  /** Relative paths under `prefix/`. */
  list(prefix: string): string[];
}

/** A storyboard as written, plus where it was found. */
export interface Storyboard {
  id: string;
  title: string;
  /** Path relative to the compliance root (`universal/capability-discovery.yaml`). */
  file: string;
  /** `universal`, a protocol baseline, a specialism, or a scenario file under either. */
  kind: 'universal' | 'protocol' | 'specialism' | 'scenario';
  /** The protocol (`media-buy`) or specialism (`sales-guaranteed`) folder it sits in. */
  folder?: string;
  doc: JsonObject;
}

/** Why a compliance folder or tarball could not be read. */
export class ComplianceError extends Error {
  override readonly name = 'ComplianceError';
}

/** Text files of a release, keyed by path relative to the compliance root. */
export type ComplianceFiles = ReadonlyMap<string, string>;

const MAX_FILES = 5000;

/** Reads a compliance folder (the one holding `index.json`). */
export function loadComplianceDir(dir: string): ComplianceRelease {
  let names: string[];
  try {
    names = walk(dir, dir, []);
  } catch (error) {
    throw new ComplianceError(`cannot read the compliance folder ${dir}: ${(error as Error).message}`);
  }
  const files = new Map<string, string>();
  const lazy = new Set(names);
  const read = (rel: string): string | undefined => {
    if (files.has(rel)) return files.get(rel);
    if (!lazy.has(rel)) return undefined;
    const text = readFileSync(join(dir, ...rel.split('/')), 'utf8');
    files.set(rel, text);
    return text;
  };
  return build(dir, names, read);
}

/** Reads a compliance suite from files already in memory (a verified tarball's `compliance/`). */
export function loadComplianceFiles(files: ComplianceFiles, source: string): ComplianceRelease {
  return build(source, [...files.keys()], (rel) => files.get(rel));
}

function walk(root: string, dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(root, path, out);
    else out.push(relative(root, path).split(sep).join('/'));
    if (out.length > MAX_FILES) throw new ComplianceError(`more than ${MAX_FILES} files under ${root}`);
  }
  return out;
}

function parseYaml(text: string, file: string): unknown {
  try {
    return parse(text, { maxAliasCount: 1000 });
  } catch (error) {
    throw new ComplianceError(`${file} is not valid YAML: ${(error as Error).message}`);
  }
}

function build(source: string, names: string[], read: (rel: string) => string | undefined): ComplianceRelease {
  const indexText = read('index.json');
  if (indexText === undefined) {
    throw new ComplianceError(
      `${source} has no index.json: not a compliance folder (it holds universal/, protocols/, ...)`,
    );
  }
  let index: unknown;
  try {
    index = JSON.parse(indexText);
  } catch (error) {
    throw new ComplianceError(`${source}/index.json is not JSON: ${(error as Error).message}`);
  }
  if (!isJsonObject(index) || typeof index['published_version'] !== 'string') {
    throw new ComplianceError(`${source}/index.json has no published_version`);
  }
  const storyboards = new Map<string, Storyboard>();
  const testKits = new Map<string, JsonObject>();
  for (const file of names.filter((n) => n.endsWith('.yaml')).sort()) {
    const top = file.split('/')[0];
    if (top === 'test-kits') {
      const kit = parseYaml(read(file) ?? '', file);
      if (isJsonObject(kit)) testKits.set(file, kit);
      continue;
    }
    if (top !== 'universal' && top !== 'protocols' && top !== 'specialisms') continue;
    const doc = parseYaml(read(file) ?? '', file);
    // Reference files (storyboard-schema.yaml, runner-output-contract.yaml, fictional-entities.yaml)
    // and machine files (state-machine.yaml) have no phases: they are not walked.
    if (!isJsonObject(doc) || !Array.isArray(doc['phases']) || typeof doc['id'] !== 'string') continue;
    const parts = file.split('/');
    const kind =
      top === 'universal'
        ? 'universal'
        : parts.length === 3 && parts[2] === 'index.yaml'
          ? top === 'protocols'
            ? 'protocol'
            : 'specialism'
          : 'scenario';
    const storyboard: Storyboard = {
      id: doc['id'],
      title: typeof doc['title'] === 'string' ? doc['title'] : doc['id'],
      file,
      kind,
      doc,
    };
    if (top !== 'universal' && parts[1] !== undefined) storyboard.folder = parts[1];
    if (storyboards.has(storyboard.id)) {
      throw new ComplianceError(
        `two storyboards have the id ${storyboard.id}: ${storyboards.get(storyboard.id)?.file} and ${file}`,
      );
    }
    storyboards.set(storyboard.id, storyboard);
  }
  return {
    version: index['published_version'],
    source,
    index,
    storyboards,
    testKits,
    readFile: (rel) => (names.includes(rel) ? read(posix.normalize(rel)) : undefined),
    list: (prefix) => names.filter((n) => n.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)).sort(),
  };
}

/**
 * The compliance suite of an official release tarball, fetched (or read from `from`, a file or
 * URL with its `.sha256` beside it) and verified exactly as `adcp schemas sync` verifies it
 * (SHA-256 against the sidecar and, for a pinned version, the pin), read in memory: nothing is
 * written. Throws SchemaSyncError (download, checksum) or ComplianceError (no `compliance/`).
 */
export async function loadComplianceRelease(options: {
  version: string;
  from?: string;
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
}): Promise<ComplianceRelease> {
  const { readVerifiedRelease } = await import('../schemas/sync/sync-release.js');
  const release = await readVerifiedRelease(options);
  const prefix = `adcp-${options.version}/compliance/`;
  const files = new Map<string, string>();
  for (const entry of release.entries) {
    if (entry.path.startsWith(prefix)) files.set(entry.path.slice(prefix.length), entry.data.toString('utf8'));
  }
  if (!files.has('index.json')) {
    throw new ComplianceError(`the ${options.version} release tarball has no ${prefix}index.json`);
  }
  return loadComplianceFiles(files, `${release.source} (sha256 ${release.sha256}, ${release.trust})`);
}
