import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseBundleVersion } from '../release.js';
import { schemaCacheDir } from '../schema-dirs.js';
import { forgetReleaseLookups } from '../schema-bundle.js';
import { PINNED_SHA256 } from './pinned-sha256.js';
import { DEFAULT_TAR_LIMITS, readTarGz, TarError, type TarFile, type TarLimits } from './read-tar.js';

export { PINNED_SHA256 };

/** Where official releases are published (schemas.md). */
export const RELEASE_URL = (version: string) => `https://adcontextprotocol.org/protocol/${version}.tgz`;
/** Largest tarball downloaded or read (the official 3.x ones are ~2 MB). */
export const MAX_TARBALL_BYTES = 32 * 1024 * 1024;

export type SyncErrorCode =
  | 'unknown_version'
  | 'unreachable'
  | 'too_large'
  | 'checksum_mismatch'
  | 'missing_checksum'
  | 'bad_archive'
  | 'not_a_release';

/** Why a sync failed; the cache is as it was before. */
export class SchemaSyncError extends Error {
  override readonly name = 'SchemaSyncError';
  constructor(
    readonly code: SyncErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface SyncOptions {
  /** Bundle version (`3.0.26`). */
  version: string;
  /** The tarball: an http(s) URL or a file path; default the official URL. Its `.sha256` sits beside it. */
  from?: string;
  /** The cache root (default `schemaCacheDir()`); the release goes to `{cacheDir}/{version}/`. */
  cacheDir?: string;
  fetch?: typeof globalThis.fetch;
  limits?: TarLimits & { maxTarballBytes?: number };
  signal?: AbortSignal;
}

export interface SyncResult {
  version: string;
  dir: string;
  sha256: string;
  files: number;
  bytes: number;
  /** `checksum-pinned`: matched the pin and the sidecar; `checksum-only`: the sidecar alone (no pin for this version). Sigstore is not checked. */
  trust: 'checksum-pinned' | 'checksum-only';
  source: string;
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** Only https, or http to a loopback host (a local mirror or a test). */
function checkUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SchemaSyncError('unreachable', `not a URL: ${url}`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) {
    throw new SchemaSyncError(
      'unreachable',
      `refused ${parsed.protocol}//${parsed.host}: use https (http only on loopback)`,
    );
  }
  if (parsed.username !== '' || parsed.password !== '')
    throw new SchemaSyncError('unreachable', 'no credentials in the URL');
  return parsed;
}

async function fetchCapped(url: string, max: number, options: SyncOptions): Promise<Buffer> {
  const f = options.fetch ?? globalThis.fetch;
  let response: Response;
  const target = checkUrl(url);
  const get = () => f(target, { redirect: 'error', signal: options.signal ?? AbortSignal.timeout(60_000) });
  try {
    // A GET is safe to repeat: once, when a pooled connection was closed under us.
    response = await get().catch((error: unknown) => {
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return get();
      throw error;
    });
  } catch (error) {
    if (error instanceof SchemaSyncError) throw error;
    throw new SchemaSyncError(
      'unreachable',
      `could not fetch ${url}: ${(error as Error).message}${describeCause(error)}`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new SchemaSyncError('unreachable', `${url} answered HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => undefined);
    throw new SchemaSyncError('too_large', `${url} is ${declared} bytes, over the ${max}-byte limit`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += (chunk as Uint8Array).byteLength;
    if (total > max) throw new SchemaSyncError('too_large', `${url} is over the ${max}-byte limit`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}

function readCapped(path: string, max: number): Buffer {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new SchemaSyncError('unreachable', `no file at ${path}`);
  }
  if (size > max) throw new SchemaSyncError('too_large', `${path} is ${size} bytes, over the ${max}-byte limit`);
  return readFileSync(path);
}

/** The hex digest of a `.sha256` sidecar (`<hex>  <name>` or `<hex>`). */
export function parseSha256Sidecar(text: string): string {
  const match = /^([0-9a-fA-F]{64})(\s|$)/.exec(text.trim());
  if (match === null) throw new SchemaSyncError('missing_checksum', 'the .sha256 sidecar holds no SHA-256 digest');
  return match[1]!.toLowerCase();
}

/** A release tarball read whole and checked (sidecar and pin), not yet written anywhere. */
export interface VerifiedRelease {
  version: string;
  /** Every file of the archive (paths as in the tarball: `adcp-{version}/...`). */
  entries: TarFile[];
  sha256: string;
  trust: 'checksum-pinned' | 'checksum-only';
  source: string;
}

/**
 * Fetches (or reads) the release tarball of `version` and checks it as `syncRelease` does: its
 * SHA-256 must match the `.sha256` sidecar beside it and, for a pinned version, the pin. The
 * schemas sync and the storyboard runner (which reads `compliance/`) share it. Throws
 * SchemaSyncError.
 */
export async function readVerifiedRelease(options: Omit<SyncOptions, 'cacheDir'>): Promise<VerifiedRelease> {
  const { version } = options;
  if (typeof version !== 'string' || parseBundleVersion(version) === undefined) {
    throw new SchemaSyncError(
      'unknown_version',
      `not a release version: ${JSON.stringify(String(version)).slice(0, 80)} (say 3.1.19)`,
    );
  }
  const source = options.from ?? RELEASE_URL(version);
  const max = options.limits?.maxTarballBytes ?? MAX_TARBALL_BYTES;
  const remote = isUrl(source);
  const tarball = remote ? await fetchCapped(source, max, options) : readCapped(source, max);
  const sidecarText = remote
    ? (await fetchCapped(`${source}.sha256`, 4096, options)).toString('utf8')
    : readCapped(`${source}.sha256`, 4096).toString('utf8');
  const sidecar = parseSha256Sidecar(sidecarText);
  const sha256 = createHash('sha256').update(tarball).digest('hex');
  if (sha256 !== sidecar) {
    throw new SchemaSyncError('checksum_mismatch', `SHA-256 ${sha256} does not match the .sha256 sidecar (${sidecar})`);
  }
  const pin = PINNED_SHA256[version];
  if (pin !== undefined && sha256 !== pin) {
    throw new SchemaSyncError(
      'checksum_mismatch',
      `SHA-256 ${sha256} does not match the digest pinned for ${version} (${pin})`,
    );
  }
  let entries: TarFile[];
  try {
    entries = readTarGz(tarball, { ...DEFAULT_TAR_LIMITS, ...options.limits });
  } catch (error) {
    if (error instanceof TarError) {
      throw new SchemaSyncError(error.code === 'too_large' ? 'too_large' : 'bad_archive', error.message);
    }
    throw error;
  }
  return {
    version,
    entries,
    sha256,
    trust: PINNED_SHA256[version] === undefined ? 'checksum-only' : 'checksum-pinned',
    source,
  };
}

/**
 * Downloads (or reads) a release tarball and its `.sha256` sidecar, checks the digest against the
 * sidecar and, for a version pinned in PINNED_SHA256, the pin; reads the archive in memory with
 * the safe reader (no entry outside the target, no link, size and count caps); writes the
 * release's `schemas/` tree to a staging folder and renames it into `{cacheDir}/{version}/`.
 * Any failure throws SchemaSyncError and leaves the cache as it was.
 */
export async function syncRelease(options: SyncOptions): Promise<SyncResult> {
  const { version, entries, sha256, source } = await readVerifiedRelease(options);
  const pin = PINNED_SHA256[version];
  const prefix = `adcp-${version}/schemas/`;
  const files = entries
    .filter((e) => e.path.startsWith(prefix))
    .map((e) => ({ ...e, path: e.path.slice(prefix.length) }));
  if (!files.some((f) => f.path === 'manifest.json')) {
    throw new SchemaSyncError(
      'not_a_release',
      `the archive has no ${prefix}manifest.json: not an AdCP ${version} release`,
    );
  }
  const cacheDir = options.cacheDir ?? schemaCacheDir();
  mkdirSync(cacheDir, { recursive: true });
  const staging = join(cacheDir, `.staging-${version}-${randomBytes(6).toString('hex')}`);
  const target = join(cacheDir, version);
  const old = `${staging}.old`;
  let bytes = 0;
  try {
    for (const file of files) {
      const out = join(staging, file.path); // paths were checked: relative, no `..`
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, file.data, { flag: 'wx' });
      bytes += file.data.length;
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if ((error as { code?: string }).code === 'EEXIST')
      throw new SchemaSyncError('bad_archive', 'the archive holds the same file twice');
    throw error;
  }
  let replaced = false;
  try {
    renameSync(target, old);
    replaced = true;
  } catch {
    // no earlier copy
  }
  try {
    renameSync(staging, target);
  } catch (error) {
    if (replaced) renameSync(old, target);
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  if (replaced) rmSync(old, { recursive: true, force: true });
  forgetReleaseLookups(target);
  return {
    version,
    dir: target,
    sha256,
    files: files.length,
    bytes,
    trust: pin === undefined ? 'checksum-only' : 'checksum-pinned',
    source,
  };
}

/** `fetch failed` says little: add the cause's code or message (ECONNREFUSED, a TLS error). */
function describeCause(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const text = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  return text === '' ? '' : ` (${text.slice(0, 200)})`;
}
