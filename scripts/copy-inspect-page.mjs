// Copies the inspector's page (src/inspect/page: HTML, JS modules, CSS, icon; no build step) to
// <out>/inspect/page, beside the compiled server that serves it: `npm run build` calls it, so the
// page ships in the package (`files: dist`).
import { cpSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(root, process.argv[2] ?? 'dist');
const from = join(root, 'src', 'inspect', 'page');
if (!existsSync(from)) throw new Error(`no page at ${from}`);
cpSync(from, join(out, 'inspect', 'page'), { recursive: true, filter: (path) => !path.endsWith('.test.ts') });
