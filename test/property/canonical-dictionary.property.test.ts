// Differential test of the Structured Fields fast path: whatever `parseCanonicalDictionary`
// accepts, the general RFC 8941 parser must accept with the same value (and, for inner lists,
// the header text the fast path keeps must be the general serialisation, since it becomes
// `@signature-params` in the signature base). The fast path may decline anything; it may never
// accept what the general parser refuses.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { canonicalTextOf, parseCanonicalDictionary } from '../../src/signing/canonical-dictionary.js';
import { parseDictionaryGeneral, serializeInnerList } from '../../src/signing/structured-fields.js';
import { signRequest } from '../../src/signing/sign-request.js';

const RUNS = { numRuns: 4000 };
const { privateKey } = generateKeyPairSync('ed25519');

/** Checks one text; true when the fast path accepted it. */
function agree(text: string): boolean {
  const fast = parseCanonicalDictionary(text);
  if (fast === undefined) return false;
  const general = parseDictionaryGeneral(text);
  assert.notEqual(general, undefined, `fast path accepted what the general parser refuses: ${JSON.stringify(text)}`);
  assert.deepStrictEqual(fast, general, JSON.stringify(text));
  // The fast path never keeps a repeated key, so the strict reading agrees too.
  assert.deepStrictEqual(fast, parseDictionaryGeneral(text, { rejectDuplicateKeys: true }), JSON.stringify(text));
  for (const [key, member] of fast) {
    if (member.kind !== 'inner-list') continue;
    const general = parseDictionaryGeneral(text)?.get(key);
    assert.ok(general?.kind === 'inner-list');
    assert.equal(canonicalTextOf(member), serializeInnerList(general), JSON.stringify(text));
  }
  return true;
}

const key = fc.stringMatching(/^[a-z*][a-z0-9_\-.*]{0,6}$/);
const bareItem = fc.oneof(
  fc.stringMatching(/^[ -~]{0,12}$/).map((s) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`),
  fc.nat().map(String),
  fc.integer({ min: -5, max: 5 }).map(String),
  fc.stringMatching(/^[A-Za-z0-9+/=_-]{0,12}$/).map((s) => `:${s}:`),
  fc.constantFrom('?1', '?0', 'tok', '1.5', '007', '1234567890123456', 'a*b'),
);
const params = fc.array(
  fc.tuple(key, bareItem).map(([k, v]) => `;${k}=${v}`),
  { maxLength: 4 },
);
const item = fc.tuple(bareItem, params).map(([v, p]) => v + p.join(''));
const innerList = fc
  .tuple(fc.array(item, { maxLength: 5 }), params)
  .map(([items, p]) => `(${items.join(' ')})${p.join('')}`);
const dictionary = fc
  .array(fc.tuple(key, fc.oneof(item, innerList)), { minLength: 1, maxLength: 4 })
  .map((members) => members.map(([k, v]) => `${k}=${v}`).join(', '));

// Single-character edits from the characters that change a Structured Field's meaning.
const edit = fc.tuple(
  fc.nat(),
  fc.constantFrom('insert', 'delete', 'replace'),
  fc.constantFrom(
    ' ',
    '\t',
    '"',
    '\\',
    ';',
    '=',
    '(',
    ')',
    ',',
    ':',
    '-',
    '.',
    '0',
    '9',
    'A',
    'a',
    '*',
    '?',
    'é',
    '\n',
  ),
);
function mutate(text: string, edits: Array<[number, string, string]>): string {
  let out = text;
  for (const [at, op, ch] of edits) {
    const i = out.length === 0 ? 0 : at % (out.length + 1);
    if (op === 'insert') out = out.slice(0, i) + ch + out.slice(i);
    else if (op === 'delete') out = out.slice(0, i) + out.slice(i + 1);
    else out = out.slice(0, i) + ch + out.slice(i + 1);
  }
  return out;
}

function signedHeaders(keyid: string, nonce: string, body: string, now: number): string[] {
  const headers = signRequest(
    { method: 'POST', url: 'https://seller.example/mcp', body, nonce, now },
    { keyid, privateKey, alg: 'ed25519' },
  );
  return [headers['signature-input'] ?? '', headers.signature ?? '', headers['content-digest'] ?? ''];
}
const signed = fc
  .tuple(
    fc.stringMatching(/^[ -~]{1,20}$/).filter((s) => !/["\\]/.test(s)),
    fc.stringMatching(/^[A-Za-z0-9_-]{22,30}$/),
    fc.string({ maxLength: 40 }),
    fc.integer({ min: 1, max: 4_000_000_000 }),
  )
  .map(([keyid, nonce, body, now]) => signedHeaders(keyid, nonce, `{"x":${JSON.stringify(body)}}`, now));

describe('parseCanonicalDictionary (differential against the general RFC 8941 parser)', () => {
  it('reads what our signer sends on the fast path, as the general parser reads it', () => {
    fc.assert(
      fc.property(signed, (headers) => {
        for (const header of headers) assert.ok(agree(header), `fast path declined ${header}`);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with the general parser on signer output with random edits', () => {
    fc.assert(
      fc.property(signed, fc.array(edit, { minLength: 1, maxLength: 3 }), (headers, edits) => {
        for (const header of headers) agree(mutate(header, edits));
      }),
      RUNS,
    );
  });

  it('agrees on generated dictionaries, canonical or not, and on their edits', () => {
    let accepted = 0;
    fc.assert(
      fc.property(dictionary, fc.array(edit, { maxLength: 2 }), (text, edits) => {
        if (agree(text)) accepted += 1;
        agree(mutate(text, edits));
      }),
      RUNS,
    );
    // Not vacuous: a good share of the generated dictionaries are canonical and take the fast path.
    assert.ok(accepted > RUNS.numRuns / 20, `fast path took only ${accepted} of ${RUNS.numRuns}`);
  });

  it('agrees on arbitrary text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[a-z0-9=();":@ ,\-_*.+/\\]{0,80}$/)), (text) => {
        agree(text);
      }),
      RUNS,
    );
  });

  it('declines, and leaves to the general parser, the valid forms outside its subset', () => {
    for (const text of [
      'a=1, a=2', // repeated key: last wins, or refused when strict
      'a', // boolean member
      'a=("x");b', // boolean parameter
      'a=("x"); b=1', // space after the semicolon
      'a=( "x")', // space inside the list
      'a=("x"  "y")',
      'a=1 , b=2',
      'a=1,b=2',
      ' a=1',
      'a=1 ',
      'a=007',
      'a=-1',
      'a=1.5',
      'a=tok',
      'a="q\\"x"',
    ]) {
      assert.equal(parseCanonicalDictionary(text), undefined, text);
      assert.notEqual(parseDictionaryGeneral(text), undefined, text);
    }
  });
});
