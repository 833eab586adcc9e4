import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { AdcpSchemaError } from './schema-error.js';
import { findReleases, type ReleaseLocation } from './schema-dirs.js';
import { precompiledTools } from './precompiled.js';
import { toWireVersion } from './release.js';
import { DEFAULT_RELEASE, selectRelease } from './select-release.js';

/** The async status schemas a tool may have (mcp-guide, "Status-specific schemas"). */
export type AsyncStatus = 'working' | 'input-required' | 'submitted';
const ASYNC_STATUSES: readonly AsyncStatus[] = ['working', 'input-required', 'submitted'];

/** One tool of a release's manifest; schema values are paths inside the release (`media-buy/x.json`). */
export interface ToolSchemas {
  name: string;
  protocol: string;
  mutating: boolean;
  request: string;
  response: string;
  async: Partial<Record<AsyncStatus, string>>;
}

/**
 * The head of a manifest as the official builds write it (and the package's build, without
 * `$schema`): its top-level `adcp_version` and `generated_at`, then `tools`. Anything else and the
 * whole manifest is parsed.
 */
const MANIFEST_HEAD =
  /^\s*\{\s*(?:"\$schema"\s*:\s*"[^"\\]{0,200}"\s*,\s*)?"adcp_version"\s*:\s*"([^"\\]{1,64})"\s*,\s*"generated_at"\s*:\s*"([^"\\]{1,64})"\s*,\s*"tools"\s*:/;

/** Largest schema file read (the biggest official file is far under it). */
const MAX_SCHEMA_BYTES = 4 * 1024 * 1024;

/**
 * One AdCP release's schema tree on disk: its manifest (tools, `mutating`, request, response and
 * async-status schemas) and its schema files read by `$id`, never over the network.
 */
export class SchemaBundle {
  /** Bundle version (`3.1.19`). */
  readonly version: string;
  /** Release precision, as on the wire (`3.1`). */
  readonly release: string;
  readonly dir: string;
  /** The prefix every `$id` of the tree starts with (`/schemas/3.1.19/` or the canonical URL). */
  readonly idPrefix: string;
  /**
   * Names the tree: the manifest's `adcp_version` and `generated_at` (a release is immutable, and
   * every build of its schemas stamps a new time).
   */
  readonly fingerprint: string;
  readonly #tools: Map<string, ToolSchemas>;
  readonly #files = new Map<string, object>();

  /**
   * `precompiledDir`: where the build's validators are (default: the package's); their tool table
   * stands in for the manifest's when the manifest's head names the same tree.
   */
  constructor(location: ReleaseLocation, precompiledDir?: string) {
    this.version = location.version;
    this.release = toWireVersion(location.version);
    this.dir = location.dir;
    const head = MANIFEST_HEAD.exec(this.#head('manifest.json', 1024) ?? '');
    let fingerprint = head === null ? undefined : `${head[1]} ${head[2]}`;
    let tools = fingerprint === undefined ? undefined : precompiledTools(this.version, fingerprint, precompiledDir);
    if (tools === undefined) {
      const manifest = this.#readJson('manifest.json') as {
        tools?: Record<string, Record<string, unknown>>;
        adcp_version?: unknown;
        generated_at?: unknown;
      };
      fingerprint = `${String(manifest.adcp_version)} ${String(manifest.generated_at)}`;
      tools = manifest.tools ?? {};
    }
    this.fingerprint = fingerprint!;
    const indexId = this.#indexId();
    this.idPrefix = indexId?.endsWith('/index.json')
      ? indexId.slice(0, -'index.json'.length)
      : `/schemas/${this.version}/`;
    this.#tools = readTools(tools);
  }

  /** Every tool name in the manifest, sorted. */
  toolNames(): string[] {
    return [...this.#tools.keys()].sort();
  }

  /** The tool's manifest entry, or `undefined` for a name the release does not define. */
  tool(name: string): ToolSchemas | undefined {
    return this.#tools.get(name);
  }

  /**
   * The tool table in the manifest's own shape (what the build stores beside its validators, so
   * a later bundle of the same tree need not parse the whole manifest).
   */
  manifestTools(): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const tool of this.#tools.values()) {
      out[tool.name] = {
        protocol: tool.protocol,
        mutating: tool.mutating,
        request_schema: tool.request,
        response_schema: tool.response,
        async_response_schemas: Object.values(tool.async),
      };
    }
    return out;
  }

  /** The `$id` of a schema path inside the release (`core/error.json`). */
  idOf(path: string): string {
    return this.idPrefix + path;
  }

  /** Maps an absolute schema URI of this release to its path, or `undefined` when it is foreign. */
  pathOf(id: string): string | undefined {
    const bare = id.split('#')[0] ?? '';
    return bare.startsWith(this.idPrefix) ? bare.slice(this.idPrefix.length) : undefined;
  }

  /** The parsed schema at `path` inside the release (read once). */
  schema(path: string): object {
    let found = this.#files.get(path);
    if (found === undefined) {
      found = this.#readJson(path);
      this.#files.set(path, found);
    }
    return found;
  }

  /** `index.json`'s `$id`, read from the file's head (the registry itself is ~100 KB of prose). */
  #indexId(): string | undefined {
    const head = this.#head('index.json', 2048);
    if (head === undefined) throw new AdcpSchemaError('unreadable_schema', `AdCP ${this.version} has no index.json`);
    return /"\$id"\s*:\s*"([^"\\]{1,200})"/.exec(head)?.[1];
  }

  /** The first `bytes` of a file of the release, or `undefined` when it cannot be opened. */
  #head(file: string, bytes: number): string | undefined {
    let fd: number;
    try {
      fd = openSync(join(this.dir, file), 'r');
    } catch {
      return undefined;
    }
    try {
      const head = Buffer.alloc(bytes);
      const n = readSync(fd, head, 0, head.length, 0);
      return head.toString('utf8', 0, n);
    } finally {
      closeSync(fd);
    }
  }

  #readJson(path: string): object {
    return this.#parse(path, this.#readText(path));
  }

  #readText(path: string): string {
    const root = resolve(this.dir);
    const file = resolve(join(root, path));
    if (!file.startsWith(root + sep) || !file.endsWith('.json')) {
      throw new AdcpSchemaError(
        'unresolvable_ref',
        `Schema path ${JSON.stringify(path).slice(0, 120)} is outside AdCP ${this.version}`,
      );
    }
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new AdcpSchemaError('unresolvable_ref', `AdCP ${this.version} has no schema ${path}`, { cause: error });
    }
    if (text.length > MAX_SCHEMA_BYTES) throw new AdcpSchemaError('unreadable_schema', `Schema ${path} is too large`);
    return text;
  }

  #parse(path: string, text: string): object {
    try {
      const value: unknown = JSON.parse(text);
      if (value === null || typeof value !== 'object') throw new TypeError('not a JSON object');
      return value;
    } catch (error) {
      throw new AdcpSchemaError('unreadable_schema', `Schema ${path} of AdCP ${this.version} is not JSON`, {
        cause: error,
      });
    }
  }
}

/** A manifest's `tools` (or the build's copy of them) as entries; entries without schemas are skipped. */
function readTools(entries: Record<string, Record<string, unknown>>): Map<string, ToolSchemas> {
  const tools = new Map<string, ToolSchemas>();
  for (const [name, entry] of Object.entries(entries)) {
    if (typeof entry.request_schema !== 'string' || typeof entry.response_schema !== 'string') continue;
    const tool: ToolSchemas = {
      name,
      protocol: String(entry.protocol),
      mutating: entry.mutating === true,
      request: entry.request_schema,
      response: entry.response_schema,
      async: {},
    };
    for (const path of Array.isArray(entry.async_response_schemas) ? entry.async_response_schemas : []) {
      const status = ASYNC_STATUSES.find((s) => typeof path === 'string' && path.endsWith(`-async-response-${s}.json`));
      if (status !== undefined) tool.async[status] = path as string;
    }
    tools.set(name, tool);
  }
  return tools;
}

const bundles = new Map<string, SchemaBundle>();
/** `search path key \0 version` -> bundle: a release is looked up on disk once, not per call. */
const lookups = new Map<string, SchemaBundle>();

/**
 * Forgets which folder each release name resolved to, so the next `loadSchemaBundle` searches the
 * disk again, and the bundle loaded from `replacedDir` if given (a sync calls it after writing a
 * release there); other loaded bundles stay cached.
 */
export function forgetReleaseLookups(replacedDir?: string): void {
  lookups.clear();
  if (replacedDir !== undefined) bundles.delete(replacedDir);
}

/** The environment the default search path depends on (see `schemaSearchPath`). */
function searchKey(dirs: readonly string[] | undefined): string {
  if (dirs !== undefined) return `dirs\0${dirs.join('\0')}`;
  const env = process.env;
  return `env\0${env['ADCP_SCHEMAS_DIR'] ?? ''}\0${env['ADCP_CACHE_DIR'] ?? ''}\0${env['XDG_CACHE_HOME'] ?? ''}\0${env['HOME'] ?? ''}`;
}

/**
 * The schema bundle of a release (`3.1.19`, `3.1`, `3`; default `3.1`), found by the search path
 * (`ADCP_SCHEMAS_DIR`, the sync cache, the built-in validators) or in `dirs`. Cached per folder; the
 * folder a release name resolves to is cached per search path (servers ask on every call).
 */
export function loadSchemaBundle(version: string = DEFAULT_RELEASE, options: { dirs?: string[] } = {}): SchemaBundle {
  const key = `${searchKey(options.dirs)}\0${version}`;
  const known = lookups.get(key);
  if (known !== undefined) return known;
  const location = selectRelease(version, options.dirs === undefined ? findReleases() : findReleases(options.dirs));
  let bundle = bundles.get(location.dir);
  if (bundle === undefined) {
    bundle = new SchemaBundle(location);
    bundles.set(location.dir, bundle);
  }
  if (lookups.size >= 256) lookups.clear();
  lookups.set(key, bundle);
  return bundle;
}
