import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseJsonStrict } from '../core/json.js';
import { parseCommand, printable, usageError } from './args.js';
import { FORMAT_HANDLERS } from './conformance/handlers.js';
import { jwkSetKeys } from './conformance/jwk-set.js';
import { HandlerUnavailable, type HandlerContext, type VectorResult } from './conformance/types.js';
import { EXIT, type CliIo, type Command } from './io.js';

const HELP = `Usage: adcp conformance --vectors DIR [--json]

Runs every AdCP conformance vector file found under DIR (recursively, *.json). Each file is
recognised by its format, not its name: the A2A profile extension v3 (card, invocation and
response vectors, an invalid one must fail with its expected_error), transport-error mapping, MCP and A2A response
extraction, webhook payload extraction, webhook receiver envelopes, RFC 9421 request signatures
(a request-signing/ folder: positive, negative, profile-3.2, with keys.json beside them), the A2A
operation-resolution vectors of the AdCP 3.2.3 erratum (request-signing/a2a/) and,
when the webhooks module is present, RFC 9421 webhook signatures, legacy HMAC-SHA256 webhooks
and @target-uri canonicalization. Prints one line per file with its passed/failed counts, the id and reason of
each failure, and the files it did not recognise.

Options:
  --vectors DIR   folder of vector files (e.g. ../shared/vectors)
  --json          print the report as JSON instead of text
  -h, --help      show this help

Exit codes: 0 every vector passed, 1 a vector failed (or none were found), 2 usage error.
`;

const MAX_FILE_BYTES = 16 * 1024 * 1024;

type FileStatus = 'passed' | 'failed' | 'skipped' | 'unrecognised' | 'support';

interface FileReport {
  file: string;
  status: FileStatus;
  format?: string;
  passed: number;
  failed: number;
  failures: { id: string; reason: string }[];
  note?: string;
}

/** `adcp conformance`: run a folder of vector files and report per file. */
export const conformanceCommand: Command = async (argv: string[], io: CliIo) => {
  const parsed = parseCommand(
    argv,
    {
      name: 'conformance',
      help: HELP,
      options: { vectors: { type: 'string' }, json: { type: 'boolean' } },
      positionals: [],
    },
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const dirOption = parsed.values.vectors;
  if (dirOption === undefined || dirOption === '')
    return usageError(io, 'conformance', new Error('missing --vectors DIR.'));
  const root = path.resolve(io.cwd, dirOption);
  const rootStat = await stat(root).catch(() => undefined);
  if (rootStat === undefined || !rootStat.isDirectory()) {
    return usageError(io, 'conformance', new Error(`--vectors ${dirOption} is not a folder.`));
  }

  const files = await listJsonFiles(root);
  const docs = new Map<string, { doc?: unknown; error?: string }>();
  for (const file of files) docs.set(file, await readJson(file));
  const context = contextFor(root, docs);

  const reports: FileReport[] = [];
  for (const [file, { doc, error }] of docs) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    reports.push(await runFile(rel, file, doc, error, context));
  }

  const totals = {
    files: reports.length,
    passed: reports.reduce((n, r) => n + r.passed, 0),
    failed: reports.reduce((n, r) => n + r.failed, 0),
    unrecognised: reports.filter((r) => r.status === 'unrecognised').length,
    skipped: reports.filter((r) => r.status === 'skipped').length,
  };
  if (parsed.values.json === true) {
    io.stdout.write(`${JSON.stringify({ vectors: root, files: reports, totals }, null, 2)}\n`);
  } else {
    for (const report of reports) io.stdout.write(formatReport(report));
    io.stdout.write(
      `\n${totals.passed + totals.failed} vectors in ${totals.files} files: ${totals.passed} passed, ${totals.failed} failed` +
        `; ${totals.unrecognised} files not recognised, ${totals.skipped} skipped.\n`,
    );
  }
  if (totals.failed > 0) return EXIT.failed;
  if (totals.passed === 0) {
    io.stderr.write(`adcp conformance: no vectors found under ${printable(dirOption)}.\n`);
    return EXIT.failed;
  }
  return EXIT.ok;
};

async function runFile(
  rel: string,
  file: string,
  doc: unknown,
  error: string | undefined,
  context: Omit<HandlerContext, 'file'>,
): Promise<FileReport> {
  const base: FileReport = { file: rel, status: 'unrecognised', passed: 0, failed: 0, failures: [] };
  if (error !== undefined) return { ...base, note: error };
  const handler = FORMAT_HANDLERS.find((h) => h.matches(doc));
  if (handler === undefined) return { ...base, note: 'not a recognised vector format' };
  if (handler.support === true) return { ...base, status: 'support', format: handler.format };
  let results: VectorResult[];
  try {
    results = await handler.run(doc, { ...context, file });
  } catch (thrown) {
    if (thrown instanceof HandlerUnavailable)
      return { ...base, status: 'skipped', format: handler.format, note: thrown.message };
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    return {
      ...base,
      status: 'failed',
      format: handler.format,
      failed: 1,
      failures: [{ id: '(file)', reason: printable(message) }],
    };
  }
  const failures = results.filter((r) => !r.ok).map((r) => ({ id: printable(r.id), reason: r.reason ?? 'failed' }));
  return {
    ...base,
    status: failures.length > 0 ? 'failed' : 'passed',
    format: handler.format,
    passed: results.length - failures.length,
    failed: failures.length,
    failures,
  };
}

function formatReport(r: FileReport): string {
  const file = printable(r.file);
  switch (r.status) {
    case 'unrecognised':
      return `SKIP  ${file}: not recognised (${r.note ?? 'unknown format'})\n`;
    case 'skipped':
      return `SKIP  ${file}: ${r.format ?? ''}, not run (${r.note ?? ''})\n`;
    case 'support':
      return `OK    ${file}: ${r.format ?? ''}\n`;
    case 'passed':
    case 'failed': {
      const head = `${r.status === 'passed' ? 'PASS' : 'FAIL'}  ${file}: ${r.format ?? ''}, ${r.passed} passed, ${r.failed} failed\n`;
      return head + r.failures.map((f) => `      ✗ ${f.id}: ${f.reason}\n`).join('');
    }
  }
}

/** Every `*.json` under `dir`, sorted, skipping dot-folders, node_modules and symlinked folders. */
async function listJsonFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listJsonFiles(full)));
    else if (entry.isFile() && entry.name.endsWith('.json')) out.push(full);
  }
  return out;
}

async function readJson(file: string): Promise<{ doc?: unknown; error?: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { error: `unreadable: ${error instanceof Error ? error.message : String(error)}` };
  }
  const parsed = parseJsonStrict(text, { maxBytes: MAX_FILE_BYTES });
  if (!parsed.ok)
    return { error: `not JSON (${parsed.reason}${parsed.key !== undefined ? ` '${printable(parsed.key, 40)}'` : ''})` };
  return { doc: parsed.value };
}

/** JWK sets found anywhere under the root, looked up from a vector file's folder upwards. */
function contextFor(root: string, docs: Map<string, { doc?: unknown }>): Omit<HandlerContext, 'file'> {
  const sets = new Map<string, unknown[]>();
  for (const [file, { doc }] of docs) {
    const keys = jwkSetKeys(doc);
    if (keys === undefined) continue;
    const dir = path.dirname(file);
    sets.set(dir, [...(sets.get(dir) ?? []), ...keys]);
  }
  return {
    jwksNear(file: string): unknown[] {
      for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
        const keys = sets.get(dir);
        if (keys !== undefined) return keys;
        if (dir === root || dir === path.dirname(dir) || !dir.startsWith(root)) break;
      }
      return [...sets.values()].flat();
    },
  };
}
