import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

// Every TypeScript snippet of the README is quoted verbatim from a file in examples/, which
// `npm run typecheck` compiles (examples/tsconfig.json): the README's code cannot drift from code
// that compiles.
const root = resolve(import.meta.dirname, '..', '..');

/** The ```ts blocks of a Markdown text, without their fences. */
function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

test('each ts block of README.md is a verbatim slice of an examples/*.ts file', () => {
  const examples = readdirSync(join(root, 'examples'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: f, text: readFileSync(join(root, 'examples', f), 'utf8') }));
  const blocks = tsBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
  assert.ok(blocks.length >= 3, `expected the buy, sell and webhook snippets, found ${blocks.length}`);
  for (const block of blocks) {
    const from = examples.find((e) => e.text.includes(block));
    assert.ok(from, `README snippet not found in examples/*.ts:\n${block.slice(0, 400)}`);
  }
});

test('a snippet that differs from its example by one character is caught', () => {
  const [first] = tsBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
  assert.ok(first !== undefined);
  const text = readFileSync(join(root, 'examples', 'buy.ts'), 'utf8');
  assert.ok(text.includes(first));
  assert.ok(!text.includes(first.replace('protocol', 'protocoI')));
});
