import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError, printable } from './args.js';
import type { JsonObject } from '../core/types.js';

/**
 * Reads the tool arguments of `adcp call`: inline JSON, `@file` (relative to `cwd`), `@-` for
 * stdin, or nothing (an empty object). Anything but a JSON object is a usage error.
 */
export async function readPayload(
  arg: string | undefined,
  cwd: string,
  readStdin: () => Promise<string> = defaultStdin,
): Promise<JsonObject> {
  if (arg === undefined || arg === '') return {};
  let text = arg;
  let source = 'the JSON argument';
  if (arg.startsWith('@')) {
    const path = arg.slice(1);
    source = path === '-' ? 'stdin' : `'${printable(path)}'`;
    try {
      text = path === '-' ? await readStdin() : await readFile(resolve(cwd, path), 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new UsageError(`cannot read ${source} (${reason}); give a path to a JSON file after '@'.`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${source} is not valid JSON (${printable((error as Error).message)}); quote the JSON in single quotes, or pass @file.json.`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${source} must be a JSON object, like '{"brief":"coffee"}'.`);
  }
  return value as JsonObject;
}

async function defaultStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
