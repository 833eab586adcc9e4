import { createRequire } from 'node:module';

/**
 * This package's name and version, as MCP `clientInfo`/`serverInfo` and the A2A card report them:
 * read once from package.json (two levels up from both `src/transport/` and `dist/transport/`), so
 * a release bump changes one file.
 */
export const ADCP_WIRE_PACKAGE: { readonly name: string; readonly version: string } = (() => {
  const pkg = createRequire(import.meta.url)('../../package.json') as { name: string; version: string };
  return Object.freeze({ name: pkg.name, version: pkg.version });
})();
