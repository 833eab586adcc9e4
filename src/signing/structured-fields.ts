/**
 * A small RFC 8941 Structured Fields parser: just the Dictionary of Items and Inner Lists that
 * `Signature-Input` and `Signature` are (RFC 9421 §4). Byte sequences are returned as their raw
 * text between the colons so the caller picks the Base64 profile (webhook v1 uses Base64URL).
 * Returns `undefined` on any syntax error; never throws.
 */
import { canonicalTextOf, parseCanonicalDictionary } from './canonical-dictionary.js';

export type BareItem =
  | { type: 'string'; value: string }
  | { type: 'token'; value: string }
  | { type: 'integer'; value: number }
  | { type: 'decimal'; value: number }
  | { type: 'boolean'; value: boolean }
  | { type: 'binary'; value: string };

export type Parameters = Array<[string, BareItem]>;
export interface Item {
  kind: 'item';
  value: BareItem;
  params: Parameters;
}
export interface InnerList {
  kind: 'inner-list';
  items: Item[];
  params: Parameters;
}
export type DictionaryMember = Item | InnerList;

// The character classes as ASCII lookup tables (built from the RFC 8941 classes below), so the
// parse loops test a code unit against a byte instead of running a RegExp per character. Every
// class is ASCII-only: a code unit of 128 or more, or past the end (NaN), is never in one.
const KEY_START = asciiClass(/[a-z*]/);
const KEY_CHAR = asciiClass(/[a-z0-9_\-.*]/);
const TOKEN_START = asciiClass(/[A-Za-z*]/);
const TOKEN_CHAR = asciiClass(/[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/);
const BINARY_CHAR = asciiClass(/[A-Za-z0-9+/=_-]/);

function asciiClass(pattern: RegExp): Uint8Array {
  const table = new Uint8Array(128);
  for (let code = 0; code < 128; code += 1) table[code] = pattern.test(String.fromCharCode(code)) ? 1 : 0;
  return table;
}

function isIn(table: Uint8Array, code: number): boolean {
  return code < 128 && table[code] === 1;
}

class Cursor {
  i = 0;
  constructor(readonly s: string) {}
  get ch(): string | undefined {
    return this.s[this.i];
  }
  skipSp(): void {
    while (this.ch === ' ') this.i += 1;
  }
  skipOws(): void {
    while (this.ch === ' ' || this.ch === '\t') this.i += 1;
  }
}

/**
 * Parses a Structured Field Dictionary (members keep header order). RFC 8941 keeps the last of
 * two members with one key; `rejectDuplicateKeys` refuses them instead (the request profile: a
 * repeated label or digest algorithm is a parser differential, so malformed). A header already
 * in canonical form takes a fast path (`parseCanonicalDictionary`); all else the general parser.
 */
export function parseDictionary(
  text: string,
  options: { rejectDuplicateKeys?: boolean } = {},
): Map<string, DictionaryMember> | undefined {
  return parseCanonicalDictionary(text) ?? parseDictionaryGeneral(text, options);
}

/** `parseDictionary` without the canonical fast path: the whole RFC 8941 grammar. */
export function parseDictionaryGeneral(
  text: string,
  options: { rejectDuplicateKeys?: boolean } = {},
): Map<string, DictionaryMember> | undefined {
  const c = new Cursor(text.trim());
  const out = new Map<string, DictionaryMember>();
  if (c.s.length === 0) return out;
  for (let guard = 0; guard < 1024; guard += 1) {
    const key = parseKey(c);
    if (key === undefined) return undefined;
    let member: DictionaryMember | undefined;
    if (c.ch === '=') {
      c.i += 1;
      member = parseItemOrInnerList(c);
    } else {
      const params = parseParameters(c);
      member = params && { kind: 'item', value: { type: 'boolean', value: true }, params };
    }
    if (member === undefined) return undefined;
    if (options.rejectDuplicateKeys === true && out.has(key)) return undefined;
    out.set(key, member);
    c.skipOws();
    if (c.ch === undefined) return out;
    if (c.ch !== ',') return undefined;
    c.i += 1;
    c.skipOws();
    if (c.ch === undefined) return undefined;
  }
  return undefined;
}

function parseItemOrInnerList(c: Cursor): DictionaryMember | undefined {
  if (c.ch === '(') return parseInnerList(c);
  return parseItem(c);
}

function parseInnerList(c: Cursor): InnerList | undefined {
  c.i += 1;
  const items: Item[] = [];
  for (let guard = 0; guard < 256; guard += 1) {
    c.skipSp();
    if (c.ch === ')') {
      c.i += 1;
      const params = parseParameters(c);
      return params && { kind: 'inner-list', items, params };
    }
    const item = parseItem(c);
    if (item === undefined) return undefined;
    items.push(item);
    if (c.ch !== ' ' && c.ch !== ')') return undefined;
  }
  return undefined;
}

function parseItem(c: Cursor): Item | undefined {
  const value = parseBareItem(c);
  if (value === undefined) return undefined;
  const params = parseParameters(c);
  return params && { kind: 'item', value, params };
}

function parseParameters(c: Cursor): Parameters | undefined {
  const params: Parameters = [];
  for (let guard = 0; guard < 64; guard += 1) {
    if (c.ch !== ';') return params;
    c.i += 1;
    c.skipSp();
    const key = parseKey(c);
    if (key === undefined) return undefined;
    let value: BareItem | undefined = { type: 'boolean', value: true };
    if (c.s[c.i] === '=') {
      c.i += 1;
      value = parseBareItem(c);
      if (value === undefined) return undefined;
    }
    const existing = params.findIndex(([k]) => k === key);
    // RFC 8941 keeps the last value of a repeated parameter; signature profiles refuse repeats
    // (the tag must appear once), so the caller sees a repeat as a marker and can reject it.
    if (existing >= 0) return undefined;
    params.push([key, value]);
  }
  return undefined;
}

function parseKey(c: Cursor): string | undefined {
  const s = c.s;
  const start = c.i;
  if (!isIn(KEY_START, s.charCodeAt(start))) return undefined;
  let i = start + 1;
  while (isIn(KEY_CHAR, s.charCodeAt(i))) i += 1;
  c.i = i;
  return s.slice(start, i);
}

function parseBareItem(c: Cursor): BareItem | undefined {
  const ch = c.ch;
  if (ch === undefined) return undefined;
  if (ch === '"') return parseString(c);
  if (ch === ':') return parseBinary(c);
  if (ch === '?') {
    const v = c.s[c.i + 1];
    if (v !== '0' && v !== '1') return undefined;
    c.i += 2;
    return { type: 'boolean', value: v === '1' };
  }
  if (ch === '-' || (ch >= '0' && ch <= '9')) return parseNumber(c);
  if (isIn(TOKEN_START, ch.charCodeAt(0))) {
    const start = c.i;
    let i = start + 1;
    while (isIn(TOKEN_CHAR, c.s.charCodeAt(i))) i += 1;
    c.i = i;
    return { type: 'token', value: c.s.slice(start, i) };
  }
  return undefined;
}

function parseString(c: Cursor): BareItem | undefined {
  c.i += 1;
  let out = '';
  while (c.i < c.s.length) {
    const ch = c.s[c.i] as string;
    c.i += 1;
    if (ch === '\\') {
      const next = c.s[c.i];
      if (next !== '"' && next !== '\\') return undefined;
      out += next;
      c.i += 1;
    } else if (ch === '"') {
      return { type: 'string', value: out };
    } else {
      const code = ch.charCodeAt(0);
      if (code < 0x20 || code > 0x7e) return undefined;
      out += ch;
    }
  }
  return undefined;
}

function parseBinary(c: Cursor): BareItem | undefined {
  const end = c.s.indexOf(':', c.i + 1);
  if (end < 0) return undefined;
  for (let i = c.i + 1; i < end; i += 1) if (!isIn(BINARY_CHAR, c.s.charCodeAt(i))) return undefined;
  const value = c.s.slice(c.i + 1, end);
  c.i = end + 1;
  return { type: 'binary', value };
}

function parseNumber(c: Cursor): BareItem | undefined {
  const m = /^-?(\d{1,15})(\.\d{1,3})?/.exec(c.s.slice(c.i));
  if (m === null) return undefined;
  const text = m[0];
  if (m[2] === undefined && (m[1] as string).length > 15) return undefined;
  c.i += text.length;
  return m[2] === undefined ? { type: 'integer', value: Number(text) } : { type: 'decimal', value: Number(text) };
}

/**
 * Serializes an inner list with its parameters (RFC 8941 §4.1.1.1), as `@signature-params` needs.
 * A list the fast path parsed is its own header text, which is already this serialisation.
 */
export function serializeInnerList(list: InnerList): string {
  const text = canonicalTextOf(list);
  if (text !== undefined) return text;
  return `(${list.items.map((i) => serializeBareItem(i.value) + serializeParams(i.params)).join(' ')})${serializeParams(list.params)}`;
}

function serializeParams(params: Parameters): string {
  return params.map(([k, v]) => (v.type === 'boolean' && v.value ? `;${k}` : `;${k}=${serializeBareItem(v)}`)).join('');
}

function serializeBareItem(item: BareItem): string {
  switch (item.type) {
    case 'string':
      return `"${item.value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    case 'token':
      return item.value;
    case 'integer':
      return String(item.value);
    case 'decimal':
      return Number.isInteger(item.value) ? `${item.value}.0` : String(item.value);
    case 'boolean':
      return item.value ? '?1' : '?0';
    case 'binary':
      return `:${item.value}:`;
  }
}
