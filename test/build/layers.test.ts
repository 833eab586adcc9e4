// The layer rule of docs/architecture.md: every import in src/ (type-only ones too) must be an
// arrow the document's table allows. The table is read from the document itself, so the two
// cannot drift apart.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, posix, relative, resolve, sep } from 'node:path';
import ts from 'typescript5';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const DOC = join(ROOT, 'docs/architecture.md');

interface Rule {
  rooms: Set<string>;
  /** Package names, or `@scope/*` for a whole scope. */
  packages: string[];
}

/** The rows between the `layers:begin` and `layers:end` markers: room -> what it may import. */
function readRules(markdown: string): Map<string, Rule> {
  const begin = markdown.indexOf('<!-- layers:begin -->');
  const end = markdown.indexOf('<!-- layers:end -->');
  if (begin < 0 || end < begin) throw new Error('docs/architecture.md has no layers:begin/end table');
  const rules = new Map<string, Rule>();
  for (const line of markdown.slice(begin, end).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    // | room | concept | rooms | packages |  ->  ['', room, concept, rooms, packages, '']
    if (cells.length !== 6) continue;
    const room = /^`([a-z0-9-]+)`/.exec(cells[1] ?? '')?.[1];
    if (room === undefined) continue;
    rules.set(room, { rooms: new Set(names(cells[3] ?? '')), packages: names(cells[4] ?? '') });
  }
  return rules;
}

function names(cell: string): string[] {
  if (cell.startsWith('(none')) return [];
  return cell
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** Every module specifier `text` imports or re-exports, dynamic imports included. */
function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** The room of a file under src/: its first folder, or `root` for a file directly in src/. */
function roomOf(fileInSrc: string): string {
  const parts = fileInSrc.split('/');
  return parts.length === 1 ? 'root' : (parts[0] ?? 'root');
}

const NODE_BUILTINS = new Set(builtinModules);

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? specifier);
}

function packageAllowed(name: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => entry === name || (entry.endsWith('/*') && name.startsWith(entry.slice(0, -1))));
}

/**
 * The imports of one file (path relative to src/, with `/`) that its room's rule does not allow,
 * as `file -> specifier (why)` lines.
 */
function violationsOf(fileInSrc: string, text: string, rules: Map<string, Rule>): string[] {
  const room = roomOf(fileInSrc);
  const rule = rules.get(room);
  if (rule === undefined) return [`${fileInSrc}: room '${room}' is not in docs/architecture.md`];
  const out: string[] = [];
  for (const specifier of importsOf(text)) {
    if (specifier.startsWith('.')) {
      const target = posix.normalize(posix.join(posix.dirname(fileInSrc), specifier));
      if (target.startsWith('../')) {
        if (!target.endsWith('package.json')) out.push(`${fileInSrc} -> ${specifier} (outside src/)`);
        continue;
      }
      const to = roomOf(target);
      if (to !== room && !rule.rooms.has(to)) out.push(`${fileInSrc} -> ${specifier} (${room} may not import ${to})`);
      continue;
    }
    const isBuiltin = specifier.startsWith('node:') || NODE_BUILTINS.has(specifier);
    if (isBuiltin) {
      if (room === 'core') out.push(`${fileInSrc} -> ${specifier} (core imports no Node module)`);
      continue;
    }
    const name = packageName(specifier);
    if (!packageAllowed(name, rule.packages)) out.push(`${fileInSrc} -> ${specifier} (${room} may not import ${name})`);
  }
  return out;
}

/** The subfolder of `src/server` a file is in (`auth`, `mcp`, ...), or undefined outside one. */
function serverPartOf(fileInSrc: string): string | undefined {
  const parts = fileInSrc.split('/');
  return parts[0] === 'server' && parts.length > 2 ? parts[1] : undefined;
}

/**
 * The import cycles between subfolders of `src/server` (files directly in `src/server`, the
 * assembly and its shared types, are left out), each as `a -> b -> a`. Empty when they form
 * layers.
 */
function serverCycles(files: ReadonlyArray<readonly [fileInSrc: string, text: string]>): string[] {
  const edges = new Map<string, Set<string>>();
  for (const [fileInSrc, text] of files) {
    const from = serverPartOf(fileInSrc);
    if (from === undefined) continue;
    for (const specifier of importsOf(text)) {
      if (!specifier.startsWith('.')) continue;
      const to = serverPartOf(posix.normalize(posix.join(posix.dirname(fileInSrc), specifier)));
      if (to === undefined || to === from) continue;
      const targets = edges.get(from) ?? new Set<string>();
      edges.set(from, targets.add(to));
    }
  }
  const cycles: string[] = [];
  const done = new Set<string>();
  const visit = (part: string, path: string[]): void => {
    const at = path.indexOf(part);
    if (at >= 0) {
      cycles.push([...path.slice(at), part].join(' -> '));
      return;
    }
    if (done.has(part)) return;
    for (const next of edges.get(part) ?? []) visit(next, [...path, part]);
    done.add(part);
  };
  for (const part of [...edges.keys()].sort()) visit(part, []);
  return cycles;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

describe('the layer rule of docs/architecture.md', () => {
  const rules = readRules(readFileSync(DOC, 'utf8'));

  it('has a row for every room in src/', () => {
    const rooms = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
    assert.deepEqual(
      rooms.filter((room) => !rules.has(room)),
      [],
    );
    assert.ok(rules.has('root') && rules.has('core'));
    assert.deepEqual([...(rules.get('core')?.rooms ?? [])], [], 'core imports no other room');
  });

  it('allows every import in src/', () => {
    const files = sourceFiles(SRC);
    assert.ok(files.length > 100, `found only ${files.length} source files`);
    const found = files.flatMap((path) =>
      violationsOf(relative(SRC, path).split(sep).join('/'), readFileSync(path, 'utf8'), rules),
    );
    assert.deepEqual(found, [], `imports that docs/architecture.md does not allow:\n${found.join('\n')}`);
  });

  it('keeps the subfolders of src/server free of import cycles', () => {
    const files = sourceFiles(join(SRC, 'server')).map(
      (path) => [relative(SRC, path).split(sep).join('/'), readFileSync(path, 'utf8')] as const,
    );
    assert.ok(
      files.some(([file]) => serverPartOf(file) !== undefined),
      'src/server has subfolders',
    );
    const cycles = serverCycles(files);
    assert.deepEqual(cycles, [], `import cycles between subfolders of src/server:\n${cycles.join('\n')}`);
  });

  it('keeps every folder of src/server at 20 files or fewer, tests included', () => {
    const crowded: string[] = [];
    const count = (dir: string): void => {
      const entries = readdirSync(dir);
      const files = entries.filter((name) => !statSync(join(dir, name)).isDirectory());
      if (files.length > 20) crowded.push(`${relative(SRC, dir)}: ${files.length} files`);
      for (const name of entries) if (statSync(join(dir, name)).isDirectory()) count(join(dir, name));
    };
    count(join(SRC, 'server'));
    assert.deepEqual(crowded, [], 'split a crowded folder by concern (docs/architecture.md, "Inside server")');
  });

  it('catches a cycle between subfolders of src/server', () => {
    const files = [
      ['server/tools/a.ts', "import { b } from '../tasks/b.js';\n"],
      ['server/tasks/b.ts', "import type { A } from '../tools/a.js';\nimport { T } from '../types.js';\n"],
      ['server/types.ts', "import type { A } from './tools/a.js';\n"],
    ] as const;
    assert.deepEqual(serverCycles(files), ['tasks -> tools -> tasks']);
    assert.deepEqual(serverCycles(files.slice(0, 1)), []);
  });

  it('catches an upward arrow, a package outside its room and a Node module in core', () => {
    const upward = "import type { AdcpClient } from '../client/adcp-client.js';\n";
    assert.deepEqual(violationsOf('mcp/x.ts', upward, rules), [
      'mcp/x.ts -> ../client/adcp-client.js (mcp may not import client)',
    ]);
    assert.deepEqual(violationsOf('a2a/x.ts', "export { y } from '../client/y.js';\n", rules), [
      'a2a/x.ts -> ../client/y.js (a2a may not import client)',
    ]);
    assert.deepEqual(violationsOf('core/x.ts', "const pg = await import('pg');\n", rules), [
      'core/x.ts -> pg (core may not import pg)',
    ]);
    assert.deepEqual(violationsOf('core/x.ts', "import { readFileSync } from 'node:fs';\n", rules), [
      'core/x.ts -> node:fs (core imports no Node module)',
    ]);
    assert.deepEqual(
      violationsOf('mcp/x.ts', "import { Client } from '@modelcontextprotocol/sdk/client/index.js';\n", rules),
      [],
    );
    assert.deepEqual(violationsOf('client/x.ts', "import { sleep } from '../transport/sleep.js';\n", rules), []);
  });
});
