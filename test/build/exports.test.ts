// The public surface, entry point by entry point, against a committed list
// (test/build/exports.snapshot.json). A name added to or removed from an entry point fails here
// until the list is updated on purpose:  UPDATE_EXPORTS=1 node scripts/run-tests.mjs test/build/exports
// A name removed or moved is a breaking change: list it in docs/breaking-changes.md. Each name
// has one entry (docs/decisions/0271).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript5';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const snapshotFile = path.join(repoRoot, 'test', 'build', 'exports.snapshot.json');

interface EntryExports {
  values: string[];
  types: string[];
}

/** package.json `exports` ("./client" -> ./dist/client/index.js) as entry -> source file. */
function entryPoints(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import?: string }>;
  };
  const out = new Map<string, string>();
  for (const [entry, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.import;
    if (file === undefined || !file.startsWith('./dist/') || !file.endsWith('.js')) continue;
    out.set(entry, path.join(repoRoot, 'src', file.slice('./dist/'.length).replace(/\.js$/, '.ts')));
  }
  return out;
}

/** The names an entry file exports, read from its syntax: every entry is a list of named re-exports. */
function declaredExports(file: string): EntryExports {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const values: string[] = [];
  const types: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) {
      const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
      assert.ok(
        !modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword),
        `${file}: an entry point holds re-exports only`,
      );
      continue;
    }
    const clause = statement.exportClause;
    assert.ok(clause !== undefined && ts.isNamedExports(clause), `${file}: no \`export *\` in an entry point`);
    for (const specifier of clause.elements) {
      (statement.isTypeOnly || specifier.isTypeOnly ? types : values).push(specifier.name.text);
    }
  }
  return { values: values.sort(), types: types.sort() };
}

describe('public entry points', () => {
  const entries = entryPoints();
  const actual: Record<string, EntryExports> = {};
  for (const [entry, file] of entries) actual[entry] = declaredExports(file);

  it('export exactly the names in test/build/exports.snapshot.json', () => {
    if (process.env['UPDATE_EXPORTS'] === '1') writeFileSync(snapshotFile, `${JSON.stringify(actual, null, 2)}\n`);
    const expected = JSON.parse(readFileSync(snapshotFile, 'utf8')) as Record<string, EntryExports>;
    assert.deepEqual(
      actual,
      expected,
      'the public surface changed: if on purpose, run UPDATE_EXPORTS=1 node scripts/run-tests.mjs test/build/exports and commit the list',
    );
  });

  it('export each name from one entry only (docs/decisions/0271)', () => {
    const homes = new Map<string, string[]>();
    for (const [entry, names] of Object.entries(actual)) {
      for (const name of [...names.values, ...names.types]) homes.set(name, [...(homes.get(name) ?? []), entry]);
    }
    const twice = [...homes]
      .filter(([, where]) => where.length > 1)
      .map(([name, where]) => `${name}: ${where.join(', ')}`);
    assert.deepEqual(twice, [], 'a name has one home: export it from one entry and import it from there');
  });

  for (const [entry, file] of entries) {
    it(`${entry}: the module's run-time exports are the listed values`, async () => {
      const loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      assert.deepEqual(Object.keys(loaded).sort(), actual[entry]?.values);
    });
  }
});
