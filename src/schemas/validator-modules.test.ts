import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { BundleCompiler } from './bundle-compiler.js';
import { loadSchemaBundle } from './schema-bundle.js';
import { splitValidatorModules, stripProse } from './validator-modules.js';
import { mediaBuyRequest, packageRequest } from '../seller/sample-requests.js';

const require = createRequire(import.meta.url);

describe('splitValidatorModules', () => {
  it('writes modules that answer exactly as the validators compiled at run time', () => {
    const bundle = loadSchemaBundle('3.1');
    const tool = bundle.tool('create_media_buy')!;
    const paths = [tool.request, tool.response, ...Object.values(tool.async)];
    const build = new BundleCompiler(bundle, { source: true });
    for (const p of paths) build.compile(p);
    const moduleOf = (id: string) => (bundle.pathOf(id) ?? '_unnamed.json').replace(/\.json$/, '.cjs');
    const { modules, roots } = splitValidatorModules(
      build.ajv!,
      paths.map((p) => bundle.idOf(p)),
      moduleOf,
    );
    // One module per schema file, and no function defined twice across them.
    const defined = [...modules.values()].flatMap((code) =>
      [...code.matchAll(/^function (validate\d+)\(data, \{/gm)].map((m) => m[1]),
    );
    assert.equal(new Set(defined).size, defined.length);
    assert.ok(modules.size > 50, `${modules.size} modules`);

    // Beside the package, so the modules resolve ajv and ajv-formats as they do in dist/.
    const dir = mkdtempSync(fileURLToPath(new URL('./.validators-', import.meta.url)));
    try {
      for (const [file, code] of modules) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        writeFileSync(join(dir, file), code);
      }
      const runtime = new BundleCompiler(bundle, { precompiled: false });
      const load = (p: string) => {
        const root = roots.get(bundle.idOf(p))!;
        return (require(join(dir, root.module)) as Record<string, ValidateFunction>)[root.name]!;
      };
      const valid = {
        ...mediaBuyRequest([packageRequest('ctv_premium_sports', 5000)]),
        idempotency_key: 'k'.repeat(32),
      };
      const values = [
        valid,
        {},
        { ...valid, packages: [{ product_id: 7 }] },
        { ...valid, start_time: 'yesterday' },
        null,
      ];
      for (const value of values) {
        const ours = load(tool.request);
        const theirs = runtime.compile(tool.request);
        assert.equal(ours(value), theirs(value));
        assert.deepEqual(ours.errors, theirs.errors);
      }
      const working = load(tool.async.working!);
      assert.equal(working({ percentage: 'half' }), false);
      assert.equal(working({ percentage: 50 }), true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('stripProse', () => {
  it('drops descriptions, titles and examples but keeps properties so named', () => {
    const schema = {
      title: 'T',
      description: 'D',
      examples: [{ a: 1 }],
      properties: { description: { type: 'string', description: 'x' }, title: { enum: ['description'] } },
      required: ['description'],
    };
    assert.deepEqual(stripProse(schema), {
      properties: { description: { type: 'string' }, title: { enum: ['description'] } },
      required: ['description'],
    });
  });
});
