#!/usr/bin/env node
// Node 20's test runner does not expand globs: find the *.test.ts files here and hand them over.
// Usage: node scripts/run-tests.mjs [path-substring ...]   (no argument: every test)
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The library reads only the schema folder it is told: the tests name the official schemas beside
// the checkout (../shared/schemas) unless the caller set ADCP_SCHEMAS_DIR.
process.env['ADCP_SCHEMAS_DIR'] ||= join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'schemas');

function find(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) find(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = find('src', find('test', []))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ') || '*.test.ts'}`);
  process.exit(1);
}
// The unit tests beside their files in src/ (pure functions, loopback at most) run together in one
// process: starting a process and tsx for each of them cost ~0.5 s of CPU per file, most of
// `npm run test:unit` (78 s for 87 files; in one process, seconds). A watchdog bounds that process,
// since the runner's --test-timeout applies only to --test. Everything under test/ runs a process
// per file. A file there that needs longer than the default (a full build on a busy machine) says
// so in its first line: `// test-timeout-ms: 600000`; such files run after the others, together.
const DEFAULT_TIMEOUT_MS = 120_000;
const IN_PROCESS_WATCHDOG_MS = 300_000;
const here = dirname(fileURLToPath(import.meta.url));
const timeoutOf = (file) =>
  Number(/^\/\/ test-timeout-ms: (\d+)/.exec(readFileSync(file, 'utf8').slice(0, 200))?.[1] ?? DEFAULT_TIMEOUT_MS);
const unitFiles = files.filter((f) => f.startsWith(`src${sep}`));
const groups = new Map();
for (const file of files.filter((f) => !unitFiles.includes(f))) {
  const timeout = timeoutOf(file);
  groups.set(timeout, [...(groups.get(timeout) ?? []), file]);
}

// One reporter for every group (scripts/test-reporter.mjs): a dot per passing test, failures in
// full; each group's counts come back in a file, and the run ends with one total line.
const reporter = join(here, 'test-reporter.mjs');
const countsDir = mkdtempSync(join(tmpdir(), 'adcp-test-counts-'));

function run(args, index, watchdogMs, fileTimeoutMs) {
  const countsFile = join(countsDir, `group-${index}.json`);
  // Started from inside a test (test/build/run-tests.test.ts), the runner's own context variable
  // would make these runners talk its internal protocol instead of reporting.
  const { NODE_TEST_CONTEXT: _context, ADCP_TEST_FILE_TIMEOUT_MS: _timeout, ...inherited } = process.env;
  const env = {
    ...inherited,
    ADCP_TEST_COUNTS: countsFile,
    ...(fileTimeoutMs === undefined ? {} : { ADCP_TEST_FILE_TIMEOUT_MS: String(fileTimeoutMs) }),
  };
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        // The watchdog first: it then also covers a file stuck while the loader (tsx) loads it.
        ...(fileTimeoutMs === undefined ? [] : ['--import', join(here, 'test-watchdog.mjs')]),
        '--import',
        'tsx',
        `--test-reporter=${reporter}`,
        '--test-reporter-destination=stdout',
        ...args,
      ],
      { stdio: 'inherit', env },
    );
    const watchdog =
      watchdogMs === undefined
        ? undefined
        : setTimeout(() => {
            console.log(`\nthe unit tests still ran after ${watchdogMs / 1000} s: stopped`);
            child.kill('SIGKILL');
          }, watchdogMs);
    child.on('exit', (code, signal) => {
      clearTimeout(watchdog);
      let counts;
      try {
        counts = JSON.parse(readFileSync(countsFile, 'utf8'));
      } catch {
        counts = undefined;
      }
      resolve({ code: signal ? 1 : (code ?? 1), counts });
    });
  });
}

const runs = [];
if (unitFiles.length > 0) {
  runs.push({
    title: `${unitFiles.length} unit test file(s) in one process`,
    args: [join(here, 'test-in-process.mjs'), ...unitFiles],
    watchdogMs: IN_PROCESS_WATCHDOG_MS,
  });
}
for (const timeout of [...groups.keys()].sort((a, b) => a - b)) {
  const group = groups.get(timeout);
  runs.push({
    title: `${group.length} test file(s), a process each, timeout ${timeout / 1000} s per test`,
    // Each file's process loads scripts/test-watchdog.mjs: near its timeout it says what it waits on.
    args: ['--test', '--test-concurrency=2', `--test-timeout=${timeout}`, ...group],
    fileTimeoutMs: timeout,
  });
}

const started = Date.now();
const total = { passed: 0, failed: 0, skipped: 0, todo: 0 };
let failed = false;
for (const [index, { title, args, watchdogMs, fileTimeoutMs }] of runs.entries()) {
  console.log(title);
  const { code, counts } = await run(args, index, watchdogMs, fileTimeoutMs);
  if (counts === undefined) {
    console.log('the test runner ended without its counts (it crashed or was stopped): counted as 1 failed');
    total.failed += 1;
  } else for (const key of Object.keys(total)) total[key] += counts[key] ?? 0;
  if (code !== 0) failed = true;
}
rmSync(countsDir, { recursive: true, force: true });
if (failed && total.failed === 0) total.failed = 1; // the runner failed without a failed test: never a green total
const extra = [total.skipped > 0 ? `${total.skipped} skipped` : '', total.todo > 0 ? `${total.todo} todo` : '']
  .filter(Boolean)
  .join(', ');
const seconds = Math.round((Date.now() - started) / 1000);
console.log(
  `\n${total.passed} passed, ${total.failed} failed${extra ? `, ${extra}` : ''} (${files.length} files, ${seconds} s)`,
);
process.exit(failed || total.failed > 0 ? 1 : 0);
