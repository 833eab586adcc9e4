// The reporter of scripts/run-tests.mjs: a dot per passing test, every failure in full (the
// test's name, file and error as it happens; at the end, the last lines each failing file
// printed), and the counts written as JSON to ADCP_TEST_COUNTS so that run-tests.mjs can print
// one total line across its runner groups.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { inspect } from 'node:util';

const KEEP_OUTPUT_LINES = 60;

/** Tests counted from the runner's events (suites are not tests; a file that crashed counts once). */
export default async function* report(source) {
  const counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  const output = new Map(); // file -> the last lines it printed
  const failedFiles = new Set();
  let column = 0;
  const where = (file) => (file ? relative(process.cwd(), file) : '?');
  for await (const { type, data } of source) {
    if (type === 'test:stdout' || type === 'test:stderr') {
      const lines = output.get(data.file) ?? [];
      lines.push(...String(data.message).replace(/\n$/, '').split('\n'));
      output.set(data.file, lines.slice(-KEEP_OUTPUT_LINES));
      continue;
    }
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    if (data.details?.type === 'suite') continue;
    if (data.skip) counts.skipped += 1;
    else if (data.todo) counts.todo += 1;
    else if (type === 'test:pass') counts.passed += 1;
    else counts.failed += 1;
    if (type === 'test:pass') {
      column = (column + 1) % 80;
      yield column === 0 ? '.\n' : '.';
      continue;
    }
    failedFiles.add(data.file);
    const error = data.details?.error;
    const shown = error?.code === 'ERR_TEST_FAILURE' && error.cause !== undefined ? error.cause : error;
    const body = inspect(shown, { depth: 6, colors: false })
      .split('\n')
      .map((line) => `    ${line}`)
      .join('\n');
    const name = data.name === data.file ? '(the file itself: it crashed or timed out)' : data.name;
    yield `${column === 0 ? '' : '\n'}FAIL ${where(data.file)}\n  ${name}\n${body}\n`;
    column = 0;
  }
  if (column !== 0) yield '\n';
  for (const file of failedFiles) {
    const lines = output.get(file) ?? [];
    if (lines.length > 0) yield `\n--- last output of ${where(file)} ---\n${lines.join('\n')}\n---\n`;
  }
  if (process.env['ADCP_TEST_COUNTS']) writeFileSync(process.env['ADCP_TEST_COUNTS'], JSON.stringify(counts));
}
