import type { BareItem, DictionaryMember, InnerList, Item, Parameters } from './structured-fields.js';

/**
 * The fast path of `parseDictionary`: a Dictionary already in RFC 8941 canonical form (what
 * `serialize` produces: members joined by `, `, inner-list items by one space, no other
 * whitespace) holding only strings without escapes, non-negative integers without leading zeros,
 * and byte sequences. That is what AdCP signers send in `Signature-Input`, `Signature` and
 * `Content-Digest`. Anything else, including anything malformed, answers `undefined`: the caller
 * then runs the general parser, which decides. So this parser never rejects; what it accepts,
 * the general parser accepts with the same value (test/property/canonical-dictionary.test.ts).
 * Limits sit under the general parser's (255 items, 63 parameters, 1,024 members).
 */
export function parseCanonicalDictionary(text: string): Map<string, DictionaryMember> | undefined {
  const out = new Map<string, DictionaryMember>();
  let i = 0;
  for (let members = 0; members < MAX_MEMBERS; members += 1) {
    const keyEnd = scanKey(text, i);
    if (keyEnd === i || text.charCodeAt(keyEnd) !== EQUALS) return undefined;
    const key = text.slice(i, keyEnd);
    // A repeated key is refused (strict) or kept last (RFC 8941): the general parser's call.
    if (out.has(key)) return undefined;
    i = keyEnd + 1;
    let member: DictionaryMember;
    if (text.charCodeAt(i) === OPEN) {
      const list = scanInnerList(text, i);
      if (list === undefined) return undefined;
      member = list.value;
      i = list.end;
    } else {
      const item = scanItem(text, i);
      if (item === undefined) return undefined;
      member = item.value;
      i = item.end;
    }
    out.set(key, member);
    if (i === text.length) return out;
    if (text.charCodeAt(i) !== COMMA || text.charCodeAt(i + 1) !== SPACE) return undefined;
    i += 2;
  }
  return undefined;
}

/** The exact header text an inner list was parsed from, when the fast path read it (its canonical serialisation). */
export function canonicalTextOf(list: InnerList): string | undefined {
  return canonicalText.get(list);
}

const canonicalText = new WeakMap<InnerList, string>();
const MAX_MEMBERS = 16;
const MAX_ITEMS = 64;
const MAX_PARAMS = 32;
const EQUALS = 0x3d;
const OPEN = 0x28;
const CLOSE = 0x29;
const COMMA = 0x2c;
const SPACE = 0x20;
const SEMICOLON = 0x3b;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const ZERO = 0x30;
const NINE = 0x39;

type Scanned<T> = { value: T; end: number } | undefined;

// RFC 8941 key: lcalpha or `*`, then lcalpha, digits, `_`, `-`, `.`, `*`.
function scanKey(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (!((first >= 0x61 && first <= 0x7a) || first === 0x2a)) return start;
  let i = start + 1;
  for (;;) {
    const c = text.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= ZERO && c <= NINE) || c === 0x5f || c === 0x2d || c === 0x2e || c === 0x2a) {
      i += 1;
    } else {
      return i;
    }
  }
}

function scanInnerList(text: string, start: number): Scanned<InnerList> {
  const items: Item[] = [];
  let i = start + 1;
  if (text.charCodeAt(i) !== CLOSE) {
    for (;;) {
      if (items.length === MAX_ITEMS) return undefined;
      const item = scanItem(text, i);
      if (item === undefined) return undefined;
      items.push(item.value);
      i = item.end;
      const c = text.charCodeAt(i);
      if (c === CLOSE) break;
      if (c !== SPACE) return undefined;
      i += 1;
    }
  }
  const params = scanParameters(text, i + 1);
  if (params === undefined) return undefined;
  const list: InnerList = { kind: 'inner-list', items, params: params.value };
  canonicalText.set(list, text.slice(start, params.end));
  return { value: list, end: params.end };
}

function scanItem(text: string, start: number): Scanned<Item> {
  const bare = scanBareItem(text, start);
  if (bare === undefined) return undefined;
  const params = scanParameters(text, bare.end);
  if (params === undefined) return undefined;
  return { value: { kind: 'item', value: bare.value, params: params.value }, end: params.end };
}

function scanParameters(text: string, start: number): Scanned<Parameters> {
  const params: Parameters = [];
  let i = start;
  while (text.charCodeAt(i) === SEMICOLON) {
    if (params.length === MAX_PARAMS) return undefined;
    const keyEnd = scanKey(text, i + 1);
    // A bare `;key` (boolean true) and a space after `;` are valid but not in this subset.
    if (keyEnd === i + 1 || text.charCodeAt(keyEnd) !== EQUALS) return undefined;
    const key = text.slice(i + 1, keyEnd);
    for (const [existing] of params) if (existing === key) return undefined;
    const value = scanBareItem(text, keyEnd + 1);
    if (value === undefined) return undefined;
    params.push([key, value.value]);
    i = value.end;
  }
  return { value: params, end: i };
}

function scanBareItem(text: string, start: number): Scanned<BareItem> {
  const first = text.charCodeAt(start);
  if (first === QUOTE) {
    // A string without escapes: printable ASCII up to the closing quote.
    for (let i = start + 1; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) return { value: { type: 'string', value: text.slice(start + 1, i) }, end: i + 1 };
      if (c === BACKSLASH || c < 0x20 || c > 0x7e) return undefined;
    }
    return undefined;
  }
  if (first === COLON) {
    const close = text.indexOf(':', start + 1);
    if (close < 0) return undefined;
    for (let i = start + 1; i < close; i += 1) if (!isBinaryChar(text.charCodeAt(i))) return undefined;
    return { value: { type: 'binary', value: text.slice(start + 1, close) }, end: close + 1 };
  }
  if (first >= ZERO && first <= NINE) {
    // An integer of 1-15 digits, no leading zero (so its text is its serialisation), not a decimal.
    let i = start + 1;
    while (i - start <= 15 && text.charCodeAt(i) >= ZERO && text.charCodeAt(i) <= NINE) i += 1;
    if (i - start > 15 || (first === ZERO && i - start > 1) || text.charCodeAt(i) === 0x2e) return undefined;
    return { value: { type: 'integer', value: Number(text.slice(start, i)) }, end: i };
  }
  return undefined;
}

// The general parser's byte-sequence class: both Base64 alphabets and `=` (the caller picks one).
function isBinaryChar(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= ZERO && c <= NINE) ||
    c === 0x2b ||
    c === 0x2f ||
    c === 0x3d ||
    c === 0x5f ||
    c === 0x2d
  );
}
