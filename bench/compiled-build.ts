import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * adcp-wire compiled by tsc, as users run it from `dist/`: into a folder of this process's own
 * under `node_modules/.cache` (so node resolves the SDKs the same way for both sides of a
 * comparison, and two runs never share one), with `package.json` beside `dist/` as in the package
 * (`src/transport/package-version.ts` reads it two levels up). With `validators`, the schema
 * validators are compiled ahead of time into it too, as `npm run build` does. `remove()` deletes it.
 */
export function buildCompiled(tag: string, options: { validators?: boolean } = {}): { dir: string; remove(): void } {
  const base = join(root, `node_modules/.cache/adcp-wire-bench-${tag}-${process.pid}`);
  const dir = join(base, 'dist');
  const remove = () => rmSync(base, { recursive: true, force: true });
  remove();
  mkdirSync(base, { recursive: true });
  copyFileSync(join(root, 'package.json'), join(base, 'package.json'));
  const build = spawnSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', dir],
    { cwd: root, encoding: 'utf8' },
  );
  if (!existsSync(join(dir, 'client/index.js'))) {
    remove();
    throw new Error(`build failed: ${build.stdout}${build.stderr}`);
  }
  if (options.validators === true) {
    // The build's folder is not beside ../shared, so name the official schemas it compiles.
    const schemas = process.env['ADCP_SCHEMAS_DIR'] ?? join(root, '..', 'shared', 'schemas');
    const ahead = spawnSync(process.execPath, [join(root, 'scripts/compile-validators.mjs'), dir], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, ADCP_SCHEMAS_DIR: schemas },
    });
    if (ahead.status !== 0) {
      remove();
      throw new Error(`compile-validators failed: ${ahead.stderr}`);
    }
  }
  return { dir, remove };
}
