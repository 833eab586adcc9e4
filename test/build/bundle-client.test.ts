// test-timeout-ms: 600000
// scripts/bundle-client.mjs on tsc's output, as `npm run build` runs it: the client entry and the
// transports it loads on first use in a few files, the MCP SDK still loaded only by the MCP chunk,
// classes shared with the other entry points still one class, and both transports working.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as sourceClient from '../../src/client/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Static imports, on one line or several (esbuild writes `import {\n  a,\n  b\n} from "./chunk-X.js";`).
const staticImports = (text: string) =>
  [...text.matchAll(/^import [^;]*? from ["']([^"']+)["'];$/gm)].map((m) => m[1] ?? '');

describe('scripts/bundle-client.mjs', () => {
  let tmp = '';
  let dist = '';
  before(() => {
    // Inside the checkout (.tmp/ is ignored), so the built files resolve the installed packages.
    mkdirSync(path.join(repoRoot, '.tmp'), { recursive: true });
    tmp = mkdtempSync(path.join(repoRoot, '.tmp', 'bundle-client-'));
    dist = path.join(tmp, 'dist');
    // package.json beside dist/, as in the package (package-version reads it two levels up).
    copyFileSync(path.join(repoRoot, 'package.json'), path.join(tmp, 'package.json'));
    const build = spawnSync(
      path.join(repoRoot, 'node_modules', '.bin', 'tsc'),
      ['-p', 'tsconfig.build.json', '--outDir', dist],
      { cwd: repoRoot, encoding: 'utf8' },
    );
    assert.equal(build.status, 0, build.stdout + build.stderr);
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('bundles the client into a few files that keep its exports, its lazy MCP SDK and the shared classes', async () => {
    const run = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'bundle-client.mjs'), dist], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    const clientDir = path.join(dist, 'client');
    const chunks = readdirSync(clientDir).filter((f) => /^chunk-[A-Z0-9]+\.js$/.test(f));
    assert.ok(chunks.length >= 2 && chunks.length <= 20, `chunks: ${chunks.join(' ')}`);

    // What `import('adcp-wire/client')` loads before any call: the entry and its static chunks,
    // none of which imports an SDK or another of our tsc files except a shared class module.
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const spec of staticImports(readFileSync(file, 'utf8'))) {
        assert.doesNotMatch(
          spec,
          /@modelcontextprotocol|@a2a-js|ajv|@opentelemetry/,
          `${path.basename(file)} imports ${spec}`,
        );
        if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      }
    };
    visit(path.join(clientDir, 'index.js'));
    const outside = [...loaded].filter((f) => path.dirname(f) !== clientDir).map((f) => path.relative(dist, f));
    // The release constants come from schemas/supported-releases, not select-release (which reads
    // the schema folders and throws AdcpSchemaError): no schemas file is loaded on import.
    // Deadline (transport/deadline-signal.js, with the timer it imports) is a class the server and
    // webhook entries reach too, so the bundle keeps it a shared file.
    assert.deepEqual(outside.sort(), ['core/wire-error.js', 'transport/deadline-signal.js', 'transport/long-timer.js']);
    assert.ok(loaded.size <= 10, `${loaded.size} files on import`);
    // package-version's fields are written into the bundle: package.json is not read through the
    // CommonJS loader on import (a buyer's first call pays for each module machinery it wakes).
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    const texts = [...loaded].map((f) => readFileSync(f, 'utf8'));
    for (const [i, text] of texts.entries()) {
      assert.doesNotMatch(text, /package\.json/, `${[...loaded][i] ?? ''} reads package.json`);
    }
    const literal = new RegExp(
      `"name":\\s*${JSON.stringify(pkg.name)},\\s*"version":\\s*${JSON.stringify(pkg.version).replace(/\./g, '\\.')}`,
    );
    assert.ok(
      texts.some((text) => literal.test(text)),
      'the bundle carries the name and version of package.json',
    );

    // The MCP era probe goes out before the MCP SDK loads (its round trip overlaps the load), and
    // the MCP SDK 1.x is loaded only by the 2025-era transport (src/mcp/legacy/): the chunks that
    // export startMcp and createMcpTransport reach no package (no SDK, zod or ajv).
    const packagesOf = (name: string) => {
      const exporting = chunks.filter((f) =>
        new RegExp(`export\\s*\\{[^}]*\\b${name}\\b`).test(readFileSync(path.join(clientDir, f), 'utf8')),
      );
      assert.ok(exporting.length >= 1, `a chunk exports ${name}`);
      const seen = new Set<string>();
      const packages = new Set<string>();
      const walk = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        for (const spec of staticImports(readFileSync(file, 'utf8'))) {
          if (spec.startsWith('.')) walk(path.resolve(path.dirname(file), spec));
          else if (!spec.startsWith('node:')) packages.add(spec);
        }
      };
      for (const chunk of exporting) walk(path.join(clientDir, chunk));
      return [...packages];
    };
    assert.deepEqual(packagesOf('startMcp'), []);
    assert.deepEqual(packagesOf('createMcpTransport'), []);

    // The MCP session is the SDK's Protocol opened with initialize (src/mcp/mcp-session-client.ts),
    // not the SDK Client, whose module loads AJV and the experimental task helpers: no chunk
    // imports either (a buyer's first answer pays for every module it loads).
    for (const chunk of chunks) {
      for (const spec of staticImports(readFileSync(path.join(clientDir, chunk), 'utf8'))) {
        assert.doesNotMatch(spec, /@modelcontextprotocol\/sdk\/(client\/index|validation)/, `${chunk} imports ${spec}`);
      }
    }

    const url = (file: string) => pathToFileURL(path.join(dist, file)).href;
    const client = (await import(url('client/index.js'))) as typeof sourceClient;
    assert.deepEqual(Object.keys(client).sort(), Object.keys(sourceClient).sort());
    // AdcpWireError's one home is the root entry: what the bundled client throws is that class.
    const root = (await import(url('index.js'))) as typeof import('../../src/index.js');
    const wireError = (await import(url('core/wire-error.js'))) as { AdcpWireError: unknown };
    assert.equal(root.AdcpWireError, wireError.AdcpWireError, 'one AdcpWireError for every subpath');
    const refused = await new client.AdcpClient({ url: 'http://127.0.0.1:1/mcp', protocol: 'mcp', retry: false })
      .call('get_products', { buying_mode: 'brief', brief: 'x' })
      .catch((error: unknown) => error);
    assert.ok(
      refused instanceof root.AdcpWireError,
      `the bundled client throws the root's AdcpWireError: ${String(refused)}`,
    );

    // Both transports through the bundle, against createAdcpServer from the server entry.
    const server = await import(url('server/index.js'));
    const seller = server.createAdcpServer({
      validateRequests: false,
      tools: [{ name: 'get_products', description: 'Products', handler: () => ({ products: [{ product_id: 'p1' }] }) }],
    });
    try {
      for (const protocol of ['a2a', 'mcp'] as const) {
        const buyer = new client.AdcpClient({ transport: client.createInMemoryTransport(seller, { protocol }) });
        const result = await buyer.call('get_products', { buying_mode: 'brief', brief: 'news' });
        assert.equal(result.status, 'completed', protocol);
        assert.deepEqual((result.data as { products?: unknown }).products, [{ product_id: 'p1' }]);
        await buyer.close();
      }
    } finally {
      await seller.close();
    }
  });
});
