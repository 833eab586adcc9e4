// Shared loading of ../shared/vectors for the webhook tests (read in place, never copied).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const vectorsDir = resolve(repoRoot, '../shared/vectors');

export function readVector<T = unknown>(...parts: string[]): T {
  return JSON.parse(readFileSync(join(vectorsDir, ...parts), 'utf8')) as T;
}

export function listVectorFiles(...parts: string[]): string[] {
  return readdirSync(join(vectorsDir, ...parts))
    .filter((f) => f.endsWith('.json'))
    .sort();
}
