#!/usr/bin/env node
// Writes docs/decisions/README.md: the index of the decision records (number, title, one line),
// read from the records themselves. Run it after adding a record:
//   node scripts/decisions-index.mjs
// test/build/decisions-index.test.ts fails while a record is missing from the index.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'decisions');

const HEADER = `# Decision records

Where the spec pages (\`../shared/spec/\`), the conformance vectors (\`../shared/vectors/\`) and the
SDKs disagree or leave a gap, and what adcp-wire does. The rule applied everywhere: **the vectors
decide, then the newer normative text**. Each record is \`NNNN-slug.md\`: Context, Decision,
Consequence, and the spec text or vector that settled it (CONTRIBUTING.md, "Decisions").

Numbers are allocated in blocks so that work in parallel never collides (gaps are fine):
0001-0099 hold the notes converted from the former \`docs/spec-notes.md\` (and 0090, the schema
search path); 0101 onwards are new records, added by each room in its own block of a hundred.
This index is written by \`node scripts/decisions-index.mjs\`; \`test/build/decisions-index.test.ts\`
checks that it lists every record.

| record | title | in one line |
|---|---|---|
`;

/** The index row of one record: its title (without the number) and its consequence in one line. */
export function indexRow(file, text) {
  const title = (/^#\s*(?:\d{4}[.:]\s*)?(.*)$/m.exec(text)?.[1] ?? file).trim();
  const summary =
    /\*\*Consequence\.\*\*\s*([\s\S]*?)(?:\n\n|$)/.exec(text)?.[1] ??
    /^##\s*(?:Consequence|Decision)s?\s*\n\s*\n([\s\S]*?)(?:\n\n|$)/m.exec(text)?.[1] ??
    '';
  let line = summary.replace(/\s+/g, ' ').trim().replace(/^- /, '').replace(/\|/g, '\\|');
  if (line.length > 160) line = `${line.slice(0, 157).replace(/\s+\S*$/, '')} ...`;
  const shown = title.charAt(0).toUpperCase() + title.slice(1);
  return `| [${file.slice(0, 4)}](${file}) | ${shown.replace(/\|/g, '\\|')} | ${line} |`;
}

const records = readdirSync(dir)
  .filter((f) => /^\d{4}-[a-z0-9-]+\.md$/.test(f))
  .sort();
const rows = records.map((f) => indexRow(f, readFileSync(join(dir, f), 'utf8')));
writeFileSync(join(dir, 'README.md'), `${HEADER}${rows.join('\n')}\n`);
console.log(`docs/decisions/README.md: ${rows.length} records`);
