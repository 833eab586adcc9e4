#!/usr/bin/env node
// Commit subjects of at most 72 characters (CONTRIBUTING.md), checked for every commit after the
// recorded baseline: the commits before it keep their long subjects. Run by `npm run check`.
// Works in a full clone; in a shallow clone (or without git) it says what it could check.
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

export const BASELINE = 'ab90194';
export const MAX_SUBJECT = 72;

function git(args) {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Subjects longer than the limit among `lines` (`<hash> <subject>`). */
export function longSubjects(lines) {
  return lines
    .filter((line) => line !== '')
    .map((line) => ({ hash: line.slice(0, line.indexOf(' ')), subject: line.slice(line.indexOf(' ') + 1) }))
    .filter(({ subject }) => [...subject].length > MAX_SUBJECT);
}

function main() {
  try {
    git(['rev-parse', '--git-dir']);
  } catch {
    console.log('check-commit-subjects: not a git checkout, nothing to check');
    return 0;
  }
  let range;
  try {
    git(['cat-file', '-e', `${BASELINE}^{commit}`]);
    range = `${BASELINE}..HEAD`;
  } catch {
    const shallow = git(['rev-parse', '--is-shallow-repository']) === 'true';
    if (!shallow) {
      console.error(`check-commit-subjects: baseline ${BASELINE} is not in this clone's history`);
      return 1;
    }
    // A shallow clone holds only the newest commits; the baseline is older than its history, so
    // every commit it has is after the baseline except its boundary commit, whose parents are cut.
    range = 'HEAD';
    console.log(
      `check-commit-subjects: shallow clone without baseline ${BASELINE}; checking only the ` +
        `commits it holds (git fetch --unshallow for the full check)`,
    );
  }
  const lines = git(['log', '--format=%H %s', range]).split('\n');
  const long = longSubjects(lines);
  const count = lines.filter((l) => l !== '').length;
  for (const { hash, subject } of long) {
    console.error(
      `${hash.slice(0, 12)} subject has ${[...subject].length} characters (max ${MAX_SUBJECT}): ${subject}`,
    );
  }
  console.log(
    `check-commit-subjects: ${count} commit(s) in ${range}, ${long.length} with a subject over ${MAX_SUBJECT} characters`,
  );
  return long.length === 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main();
