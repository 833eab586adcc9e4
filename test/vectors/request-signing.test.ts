// Every official request-signing vector (../shared/request-signing-vectors, read in place) as a
// named test, run through `adcp conformance --vectors` pointed at that folder: the same
// verifyRequestSignature the server's verifier uses; the 3.2 body-integrity cases through
// evaluateBodyIntegrity, whose decision step (decideAdmission) the server's verifier shares.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformanceCommand } from '../../src/cli/conformance.js';
import { recordingIo } from '../cli/fake-io.js';
import { describeAdmission, evaluateBodyIntegrity, parseBodyIntegrityCase } from '../../src/signing/body-integrity.js';
import { runRequestSigningVector, type RequestSigningVector } from '../../src/signing/run-request-signing-vector.js';
import type { Jwk } from '../../src/signing/jwks.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const vectorsDir = path.resolve(repoRoot, '../shared/request-signing-vectors');

function vectorFiles(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(vectorsDir, dir), { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? vectorFiles(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
    )
    .filter((f) => f.endsWith('.json'))
    .sort();
}

interface Report {
  files: {
    file: string;
    format?: string;
    status: string;
    passed: number;
    failed: number;
    failures: { reason: string }[];
  }[];
}

describe('adcp conformance --vectors ../shared/request-signing-vectors', () => {
  let report: Report;
  let exitCode = -1;
  before(async () => {
    const io = recordingIo({ cwd: repoRoot });
    exitCode = await conformanceCommand(['--vectors', vectorsDir, '--json'], io);
    report = JSON.parse(io.out()) as Report;
  });

  it('exits 0', () => assert.equal(exitCode, 0));

  for (const folder of ['positive', 'negative', 'profile-3.2/positive', 'profile-3.2/negative']) {
    for (const name of vectorFiles(folder)) {
      const file = `${folder}/${name}`;
      const vector = JSON.parse(readFileSync(path.join(vectorsDir, file), 'utf8')) as {
        name: string;
        expected_outcome: { success: boolean; error_code?: string };
      };
      const expected = vector.expected_outcome.success
        ? 'accepts'
        : `rejects with ${vector.expected_outcome.error_code}`;
      it(`${file}: ${expected} (${vector.name})`, () => {
        const entry = report.files.find((f) => f.file === file);
        assert.ok(entry !== undefined, `${file} was not run`);
        assert.deepEqual(
          { status: entry.status, passed: entry.passed, failures: entry.failures.map((f) => f.reason) },
          { status: 'passed', passed: 1, failures: [] },
        );
      });
    }
  }

  const policy = JSON.parse(readFileSync(path.join(vectorsDir, 'body-integrity-policy.json'), 'utf8')) as {
    cases: { id: string; mode: string; expected: { action: string; error_code?: string } }[];
  };
  for (const entry of policy.cases) {
    const code = entry.expected.error_code === undefined ? '' : ` ${entry.expected.error_code}`;
    it(`body-integrity-policy.json ${entry.id}: ${entry.mode} -> ${entry.expected.action}${code}`, () => {
      const facts = parseBodyIntegrityCase(entry);
      if (typeof facts === 'string') assert.fail(facts);
      assert.deepEqual(describeAdmission(evaluateBodyIntegrity(facts)), entry.expected);
    });
  }

  it('runs every body-integrity case and passes them all', () => {
    const file = report.files.find((f) => f.file === 'body-integrity-policy.json');
    assert.deepEqual(
      { status: file?.status, passed: file?.passed, failed: file?.failed },
      { status: 'passed', passed: policy.cases.length, failed: 0 },
    );
  });

  it('runs canonicalization.json through the @target-uri canonicaliser', () => {
    const entry = report.files.find((f) => f.file === 'canonicalization.json');
    assert.equal(entry?.status, 'passed');
    assert.ok((entry?.passed ?? 0) >= 30);
  });
});

// The server checks a lone request's signature on the event loop (no thread-pool hop); every
// vector must come out the same there as on the thread pool, where the conformance run above checks.
describe('every request-signing vector with the signature check on the event loop', () => {
  const keys = JSON.parse(readFileSync(path.join(vectorsDir, 'keys.json'), 'utf8')) as { keys: Jwk[] };
  for (const folder of ['positive', 'negative', 'profile-3.2/positive', 'profile-3.2/negative']) {
    for (const name of vectorFiles(folder)) {
      const file = `${folder}/${name}`;
      it(`${file}`, async () => {
        const vector = JSON.parse(readFileSync(path.join(vectorsDir, file), 'utf8')) as RequestSigningVector;
        let asked = 0;
        const offThread = (): boolean => {
          asked += 1;
          return false;
        };
        const run = await runRequestSigningVector(vector, keys, { offThread });
        assert.equal(run.actual, run.expected);
        // A vector that reaches the Ed25519/ES256 check asks once; one refused earlier never asks.
        assert.ok(asked <= 1, 'asked where to check at most once');
        if (run.expected === 'success') assert.equal(asked, 1);
      });
    }
  }
});

// The A2A operation-resolution vectors of the AdCP 3.2.3 security erratum
// (../shared/request-signing-a2a-erratum, read in place), each a named test: through
// `adcp conformance`, which runs them as their own format, and directly through the library.
const erratumDir = path.resolve(repoRoot, '../shared/request-signing-a2a-erratum');

describe('adcp conformance --vectors ../shared/request-signing-a2a-erratum', () => {
  let report: Report;
  let exitCode = -1;
  before(async () => {
    const io = recordingIo({ cwd: repoRoot });
    exitCode = await conformanceCommand(['--vectors', erratumDir, '--json'], io);
    report = JSON.parse(io.out()) as Report;
  });

  it('exits 0', () => assert.equal(exitCode, 0));

  const keys = JSON.parse(readFileSync(path.join(erratumDir, 'keys.json'), 'utf8')) as { keys: Jwk[] };
  for (const folder of ['a2a/positive', 'a2a/negative']) {
    for (const name of readdirSync(path.join(erratumDir, folder))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const file = `${folder}/${name}`;
      const vector = JSON.parse(readFileSync(path.join(erratumDir, file), 'utf8')) as RequestSigningVector & {
        name: string;
      };
      const outcome = vector.expected_outcome;
      const expected = outcome.success ? 'accepts' : `rejects with ${outcome.error_code}`;
      const resolved = outcome.resolved_operation === undefined ? '' : ` as ${outcome.resolved_operation}`;
      it(`${file}: ${expected}${resolved} (${vector.name})`, async () => {
        const entry = report.files.find((f) => f.file === file);
        assert.ok(entry !== undefined, `${file} was not run`);
        assert.deepEqual(
          { format: entry.format, status: entry.status, failures: entry.failures.map((f) => f.reason) },
          { format: 'A2A operation resolution (request signing erratum)', status: 'passed', failures: [] },
        );
        const direct = await runRequestSigningVector(vector, keys);
        assert.equal(direct.actual, direct.expected);
      });
    }
  }
});
