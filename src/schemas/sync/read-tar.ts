import { gunzipSync } from 'node:zlib';

/** Limits of one release tarball (the official 3.x ones: ~2 MB packed, ~15 MB, ~1,800 entries). */
export interface TarLimits {
  /** Bytes after gunzip. */
  maxUnpackedBytes: number;
  maxEntries: number;
  maxFileBytes: number;
}

export const DEFAULT_TAR_LIMITS: TarLimits = {
  maxUnpackedBytes: 128 * 1024 * 1024,
  maxEntries: 20_000,
  maxFileBytes: 16 * 1024 * 1024,
};

/** One regular file of the archive, its path checked (relative, `/`-separated, no `.` or `..`). */
export interface TarFile {
  path: string;
  data: Buffer;
}

/** Why an archive was refused. */
export class TarError extends Error {
  override readonly name = 'TarError';
  constructor(
    readonly code: 'too_large' | 'too_many_entries' | 'unsafe_path' | 'unsupported_entry' | 'corrupt',
    message: string,
  ) {
    super(message);
  }
}

const BLOCK = 512;
const text = (b: Buffer, from: number, len: number) => {
  const field = b.subarray(from, from + len);
  const nul = field.indexOf(0);
  return field.subarray(0, nul === -1 ? len : nul).toString('utf8');
};
const octal = (b: Buffer, from: number, len: number): number => {
  const raw = text(b, from, len).trim();
  if (!/^[0-7]{1,12}$/.test(raw)) throw new TarError('corrupt', 'a tar header has a malformed number');
  return parseInt(raw, 8);
};

/** A safe relative path, or a TarError: no absolute path, drive, backslash, control character, `.` or `..`. */
export function checkEntryPath(name: string): string {
  const path = name.replace(/\/+$/, '');
  const parts = path.split('/');
  if (
    path === '' ||
    path.startsWith('/') ||
    hasControlOrBackslash(path) ||
    /^[A-Za-z]:/.test(path) ||
    parts.some((p) => p === '' || p === '.' || p === '..')
  ) {
    throw new TarError(
      'unsafe_path',
      `refused an archive entry outside the target: ${JSON.stringify(name.slice(0, 200))}`,
    );
  }
  return path;
}

function hasControlOrBackslash(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x5c) return true;
  }
  return false;
}

/** `path=` of a pax extended header, if it has one. */
function paxPath(data: Buffer): string | undefined {
  let at = 0;
  let path: string | undefined;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const len = Number(data.subarray(at, space).toString('ascii'));
    if (!Number.isInteger(len) || len <= 0 || at + len > data.length) throw new TarError('corrupt', 'bad pax header');
    const record = data.subarray(space + 1, at + len - 1).toString('utf8');
    if (record.startsWith('path=')) path = record.slice('path='.length);
    at += len;
  }
  return path;
}

/**
 * Reads a gzip'd tar archive in memory into its regular files, refusing (TarError) any entry
 * that would land outside the target, any link or device, and anything over the limits. Nothing
 * is written: the caller writes the files it accepts.
 */
export function readTarGz(gz: Buffer, limits: TarLimits = DEFAULT_TAR_LIMITS): TarFile[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(gz, { maxOutputLength: limits.maxUnpackedBytes });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (
      code === 'ERR_BUFFER_TOO_LARGE' ||
      (error instanceof RangeError && /too large|greater than/i.test(error.message))
    )
      throw new TarError('too_large', `the archive unpacks to more than ${limits.maxUnpackedBytes} bytes`);
    throw new TarError('corrupt', 'not a gzip file');
  }
  const files: TarFile[] = [];
  let entries = 0;
  let longName: string | undefined;
  for (let at = 0; at + BLOCK <= tar.length;) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break; // end of archive
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
    if (sum !== octal(header, 148, 8)) throw new TarError('corrupt', 'a tar header checksum does not match');
    if (++entries > limits.maxEntries) throw new TarError('too_many_entries', `more than ${limits.maxEntries} entries`);
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156]!);
    const dataStart = at + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.length) throw new TarError('corrupt', 'the archive ends inside an entry');
    const data = tar.subarray(dataStart, dataEnd);
    at = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    const prefix = text(header, 345, 155);
    const name = longName ?? (prefix === '' ? text(header, 0, 100) : `${prefix}/${text(header, 0, 100)}`);
    longName = undefined;
    if (type === 'x' || type === 'L') {
      if (size > 64 * 1024) throw new TarError('corrupt', 'an extended header is too large');
      longName = type === 'L' ? text(data, 0, size) : paxPath(data);
      continue;
    }
    if (type === 'g') continue; // global pax header: nothing we use
    const path = checkEntryPath(name);
    if (type === '5') continue; // a folder: made when a file needs it
    if (type !== '0' && type !== '\0' && type !== '7') {
      throw new TarError('unsupported_entry', `refused a link or special file in the archive: ${JSON.stringify(path)}`);
    }
    if (size > limits.maxFileBytes)
      throw new TarError('too_large', `${path} is larger than ${limits.maxFileBytes} bytes`);
    files.push({ path, data: Buffer.from(data) });
  }
  return files;
}
