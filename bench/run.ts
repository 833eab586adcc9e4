// `npm run bench [filter]`: runs each bench/*.bench.ts in its own process, one after another, so
// a benchmark never shares a heap or a JIT with another. Each prints its own Markdown section.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
// The library reads only the schema folder it is given: point it at the official schemas beside
// the checkout (../shared/schemas) unless the caller named one.
process.env['ADCP_SCHEMAS_DIR'] ||= join(here, '..', '..', 'shared', 'schemas');
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
let failed = 0;
console.log(`# adcp-wire benchmarks (${new Date().toISOString()}, node ${process.version})\n`);
for (const file of files) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], { stdio: 'inherit' });
  if (run.status !== 0) {
    failed += 1;
    console.log(`\n${file}: exited with ${run.status ?? run.signal}\n`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
