import { createPublicKey, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import { decodeEitherBase64 } from '../signing/base64.js';
import { freshNonce } from '../signing/sign-request.js';
import { digestOf } from '../signing/one-shot-digest.js';
import { importPrivateKey } from '../signing/private-key.js';
import type { Jwk } from '../signing/jwks.js';
import { buildSignatureBase } from '../signing/signature-base.js';
import { parseDictionary, type InnerList } from '../signing/structured-fields.js';
import type { ComplianceRelease } from './load.js';

/**
 * The signed_requests storyboard's generated steps (universal/signed-requests.yaml, phases
 * positive_vectors and negative_vectors): each request-signing conformance vector re-signed for the
 * live agent with the test kit's keys (test-kits/signed-requests-runner.yaml), its defect kept
 * (docs/decisions/0230-signed-request-vectors.md). This file reads the vectors and builds each
 * request; run.ts sends them over the storyboard's own connection and grades the answers.
 */

/** One conformance vector as the runner uses it (README "Vector format"). */
export interface SigningVector {
  /** `positive/001-basic-post.json`, relative to the vectors folder. */
  file: string;
  kind: 'positive' | 'negative';
  name: string;
  spec_reference?: string;
  reference_now: number;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  verifier_capability: JsonObject;
  jwks_override?: unknown;
  requires_contract?: string;
  expected: { success: boolean; error_code?: string };
}

/** The vectors and the keys of one folder (`keys.json`, `positive/`, `negative/`). */
export interface SigningVectorSet {
  /** Where they were read from (shown in reports). */
  source: string;
  keys: Jwk[];
  positive: SigningVector[];
  negative: SigningVector[];
}

/** Where the storyboard says the vectors live, relative to the compliance root. */
export const COMPLIANCE_VECTORS_DIR = 'test-vectors/request-signing';

/**
 * Reads the vectors: from `dir` when given (a folder holding keys.json, positive/, negative/),
 * else from the compliance release's `test-vectors/request-signing/`. Undefined when neither has
 * them; an Error naming the file when one is unreadable.
 */
export function loadSigningVectors(
  compliance: ComplianceRelease,
  dir: string | undefined,
): SigningVectorSet | undefined {
  const files = new Map<string, string>();
  let source: string;
  if (dir !== undefined) {
    source = dir;
    for (const kind of ['positive', 'negative']) {
      let names: string[] = [];
      try {
        names = readdirSync(join(dir, kind)).filter((n) => n.endsWith('.json'));
      } catch {
        names = [];
      }
      for (const name of names) files.set(`${kind}/${name}`, readFileSync(join(dir, kind, name), 'utf8'));
    }
    try {
      files.set('keys.json', readFileSync(join(dir, 'keys.json'), 'utf8'));
    } catch {
      return undefined;
    }
  } else {
    source = `${compliance.source}/${COMPLIANCE_VECTORS_DIR}`;
    const keys = compliance.readFile(`${COMPLIANCE_VECTORS_DIR}/keys.json`);
    if (keys === undefined) return undefined;
    files.set('keys.json', keys);
    for (const kind of ['positive', 'negative']) {
      for (const path of compliance.list(`${COMPLIANCE_VECTORS_DIR}/${kind}`)) {
        const rest = path.slice(COMPLIANCE_VECTORS_DIR.length + 1);
        if (rest.split('/').length !== 2 || !rest.endsWith('.json')) continue;
        const text = compliance.readFile(path);
        if (text !== undefined) files.set(rest, text);
      }
    }
  }
  const parse = (file: string): unknown => {
    try {
      return JSON.parse(files.get(file) ?? '');
    } catch (error) {
      throw new Error(`${source}/${file} is not JSON: ${(error as Error).message}`);
    }
  };
  const keysDoc = parse('keys.json');
  const keys = isJsonObject(keysDoc) && Array.isArray(keysDoc['keys']) ? (keysDoc['keys'] as Jwk[]) : [];
  const set: SigningVectorSet = { source, keys, positive: [], negative: [] };
  for (const file of [...files.keys()].filter((f) => f !== 'keys.json').sort()) {
    const doc = parse(file);
    const kind = file.startsWith('positive/') ? 'positive' : 'negative';
    const vector = readVector(doc, file, kind);
    if (vector === undefined) throw new Error(`${source}/${file} is not a request-signing vector`);
    set[kind].push(vector);
  }
  return set;
}

function readVector(doc: unknown, file: string, kind: 'positive' | 'negative'): SigningVector | undefined {
  if (!isJsonObject(doc) || !isJsonObject(doc['request']) || !isJsonObject(doc['expected_outcome'])) return undefined;
  const request = doc['request'];
  const outcome = doc['expected_outcome'];
  if (typeof request['url'] !== 'string' || typeof request['body'] !== 'string') return undefined;
  const headers: Record<string, string> = {};
  if (isJsonObject(request['headers'])) {
    for (const [name, value] of Object.entries(request['headers'])) {
      if (typeof value === 'string') headers[name.toLowerCase()] = value;
    }
  }
  return {
    file,
    kind,
    name: typeof doc['name'] === 'string' ? doc['name'] : file,
    ...(typeof doc['spec_reference'] === 'string' ? { spec_reference: doc['spec_reference'] } : {}),
    reference_now: typeof doc['reference_now'] === 'number' ? doc['reference_now'] : 0,
    request: {
      method: typeof request['method'] === 'string' ? request['method'] : 'POST',
      url: request['url'],
      headers,
      body: request['body'],
    },
    verifier_capability: isJsonObject(doc['verifier_capability']) ? doc['verifier_capability'] : {},
    ...(doc['jwks_override'] === undefined ? {} : { jwks_override: doc['jwks_override'] }),
    ...(typeof doc['requires_contract'] === 'string' ? { requires_contract: doc['requires_contract'] } : {}),
    expected: {
      success: outcome['success'] === true,
      ...(typeof outcome['error_code'] === 'string' ? { error_code: outcome['error_code'] } : {}),
    },
  };
}

/** What the runner knows of the agent when it plans a vector. */
export interface AgentSigningFacts {
  /** The endpoint the storyboard's connection posts to (MCP endpoint or the A2A card's URL). */
  endpoint: string;
  /** `request_signing` of the agent's get_adcp_capabilities. */
  capability: JsonObject;
  /** The agent's tools (undefined: not known). */
  tools: Set<string> | undefined;
}

/** How one vector goes to the live agent, or why it cannot. */
export type VectorPlan =
  | { send: false; why: string }
  | {
      send: true;
      /** `call`: an AdCP call over the connection; `raw`: the vector's own JSON-RPC body (vector 028). */
      form: 'call' | 'raw';
      /** The AdCP operation of a call, or the JSON-RPC method of a raw body. */
      operation: string;
      args: JsonObject;
      /** The vector's query string, appended to the endpoint (vector 007). */
      query?: string;
      /** Notes for the report: which operation stands in, what was kept. */
      notes: string[];
    };

const OPERATION_NAME = /^[a-z][a-z0-9_]*$/;

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Whether a vector can be sent to the live agent, and as what (decision 0230). The form of some
 * vectors cannot reach a live agent through its own URL: the reasons are said, never guessed.
 */
export function planVector(vector: SigningVector, agent: AgentSigningFacts): VectorPlan {
  const v = vector.request;
  if (vector.jwks_override !== undefined) {
    return {
      send: false,
      why: `${vector.file} presents a key given only in its jwks_override; the agent's verifier knows the keys of keys.json (signed-requests-runner.yaml, runner_signing_keys), and the runner cannot add one to it from outside`,
    };
  }
  let url: URL;
  try {
    url = new URL(v.url);
  } catch {
    return { send: false, why: `${vector.file}: its URL ${v.url} does not parse` };
  }
  const agentUrl = new URL(agent.endpoint);
  const host = v.headers['host'];
  if (host !== undefined && host !== url.host) {
    return {
      send: false,
      why: `${vector.file} sends Host ${JSON.stringify(host)} beside the URL authority ${url.host}: a fetch derives Host from the URL it sends to, so the agent would receive a well-formed Host`,
    };
  }
  if (/[^\x21-\x7e]/.test(hostPart(v.url))) {
    return {
      send: false,
      why: `${vector.file} puts a non-ASCII host on the wire; a fetch sends the A-label (Punycode) form, and the agent is not at that host`,
    };
  }
  if (/^\[/.test(url.host) && !/^\[/.test(agentUrl.host)) {
    return {
      send: false,
      why: `${vector.file} tests an IPv6 literal authority (${url.host}); the agent is at ${agentUrl.host}, not an IPv6 literal`,
    };
  }
  if (/:\d+$/.test(hostPart(v.url)) && url.port === '') {
    return {
      send: false,
      why: `${vector.file} writes the default port in its URL (${hostPart(v.url)}); the URL parser a fetch uses drops it before sending, so the agent would receive positive/001's authority`,
    };
  }
  const path = /^[a-z]+:\/\/[^/?#]*([^?#]*)/i.exec(v.url)?.[1] ?? '';
  const segments = path.split('/').filter((s) => s !== '');
  const plainPath = segments.length === 2 && segments[0] === 'adcp' && OPERATION_NAME.test(segments[1] ?? '');
  const isRpc = !plainPath && jsonRpcMethod(v.body) !== undefined;
  if (!plainPath && !isRpc) {
    return {
      send: false,
      why: `${vector.file} tests the request path ${JSON.stringify(path)} (its canonicalization edge); the agent's endpoint is ${agentUrl.pathname}, and sending another path would address another resource`,
    };
  }
  const query = /\?([^#]*)/.exec(v.url)?.[1];
  if (query !== undefined && agentUrl.search !== '') {
    return {
      send: false,
      why: `${vector.file} tests the query string ${JSON.stringify(query)}; the agent's endpoint already has a query (${agentUrl.search})`,
    };
  }
  const cap = agent.capability;
  const agentDigest = typeof cap['covers_content_digest'] === 'string' ? cap['covers_content_digest'] : 'either';
  const vectorDigest =
    typeof vector.verifier_capability['covers_content_digest'] === 'string'
      ? vector.verifier_capability['covers_content_digest']
      : 'either';
  const policyBound =
    vector.kind === 'positive'
      ? vectorDigest !== 'either' && agentDigest !== 'either' && vectorDigest !== agentDigest
      : vectorDigest !== 'either' &&
        vectorDigest !== agentDigest &&
        ['request_signature_components_incomplete', 'request_signature_components_unexpected'].includes(
          vector.expected.error_code ?? '',
        );
  if (policyBound) {
    return {
      send: false,
      why: `${vector.file} grades a verifier whose covers_content_digest is ${vectorDigest}; the agent advertises ${agentDigest}, under which the vector's outcome does not hold`,
    };
  }
  const notes: string[] = [];
  const signed = v.headers['signature'] !== undefined || v.headers['signature-input'] !== undefined;
  if (isRpc) {
    const method = jsonRpcMethod(v.body) ?? '';
    const listed = stringList(cap['protocol_methods_required_for']);
    if (!signed && !listed.includes(method)) {
      return {
        send: false,
        why: `${vector.file} sends an unsigned ${method}; the agent's request_signing.protocol_methods_required_for does not list it (${JSON.stringify(listed)}), so the vector does not apply (signed-requests.yaml: "the runner skips when the agent does not declare the bucket")`,
      };
    }
    const body = JSON.parse(v.body) as JsonObject;
    return { send: true, form: 'raw', operation: method, args: body, notes };
  }
  let args: JsonObject;
  try {
    const parsed: unknown = v.body === '' ? {} : JSON.parse(v.body);
    if (!isJsonObject(parsed)) throw new Error('not an object');
    args = parsed;
  } catch {
    return { send: false, why: `${vector.file}: its body is not a JSON object an AdCP call can carry` };
  }
  const requiredFor = stringList(cap['required_for']);
  const supportedFor = stringList(cap['supported_for']);
  const lists = (op: string) => agent.tools === undefined || agent.tools.has(op);
  const wanted = segments[1] ?? '';
  let operation: string | undefined;
  if (!signed) {
    // An unsigned call is refused only for an operation in required_for (vector 001).
    operation = [wanted, ...requiredFor].find((op) => requiredFor.includes(op) && lists(op));
    if (operation === undefined) {
      return {
        send: false,
        why: `${vector.file} sends an unsigned ${wanted}; the agent's request_signing.required_for (${JSON.stringify(requiredFor)}) names no operation it lists, so no unsigned call is refused`,
      };
    }
  } else {
    const verified = [...requiredFor, ...supportedFor];
    operation = [wanted, ...verified].find((op) => lists(op) && (verified.length === 0 || verified.includes(op)));
    if (operation === undefined) {
      return {
        send: false,
        why: `${vector.file} targets ${wanted}; the agent lists none of it and its required_for/supported_for (${JSON.stringify(verified)})`,
      };
    }
  }
  if (operation !== wanted)
    notes.push(
      `sent as ${operation}: the vector's ${wanted} is not an operation whose signatures the agent verifies and lists (signed-requests.yaml: "The runner picks operations available")`,
    );
  return { send: true, form: 'call', operation, args, ...(query === undefined ? {} : { query }), notes };
}

/** The authority as written in a URL (`seller.example.com:443`), before any parser touches it. */
function hostPart(url: string): string {
  return /^[a-z]+:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
}

function jsonRpcMethod(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return isJsonObject(parsed) && parsed['jsonrpc'] === '2.0' && typeof parsed['method'] === 'string'
      ? parsed['method']
      : undefined;
  } catch {
    return undefined;
  }
}

/** How the runner re-signs: now, and for vector 020 another keyid and a shorter window. */
export interface ResignOptions {
  now: number;
  /** Sign afresh as this keyid (with its alg) instead of the vector's (vector 020's fill). */
  keyid?: string;
  /** `expires - created` instead of the vector's (vector 020's fill: its entries leave the cache sooner). */
  validitySeconds?: number;
}

/** The signature headers for the live request, and what was done to build them. */
export interface ResignedHeaders {
  headers: Record<string, string>;
  /** `re-signed`, `kept` (the vector's own bytes: its signature is its defect) or `unsigned`. */
  how: 'resigned' | 'kept' | 'unsigned';
  notes: string[];
}

/**
 * The vector's signature headers for a live request (`method`, `url`, `body` as they go on the
 * wire). Its `Signature-Input` is kept byte for byte except `created`/`expires` (moved from the
 * vector's reference_now to `now`, the window kept) and each `nonce` (fresh: the agent's replay
 * cache outlives one vector). When the vector's own sig1 verifies over its own request with the
 * key of keys.json, or the vector is one of the runner contract's (016, 017, 020), the live
 * request is signed afresh with the keyid's key over the same components, so
 * its defect (wrong tag, bad digest, revoked or governance key, window) is the only one; when it
 * does not, the vector's bytes are sent as they are (a placeholder is its defect, or stands where
 * an earlier check must refuse). A `Content-Digest` that matches the vector's body is recomputed
 * over the live body; one that does not is kept (vector 010's lie). Content-Type is the vector's.
 */
export function resignHeaders(
  vector: SigningVector,
  live: { method: string; url: string; body: string },
  keys: Jwk[],
  options: ResignOptions,
): ResignedHeaders {
  const v = vector.request.headers;
  const out: Record<string, string> = {};
  const notes: string[] = [];
  if (v['content-type'] !== undefined) out['content-type'] = v['content-type'];
  const digest = v['content-digest'];
  if (digest !== undefined) {
    const encoding = digestEncodingOf(vector.request.body, digest);
    if (encoding !== undefined) out['content-digest'] = `sha-256=:${digestOf('sha256', live.body).toString(encoding)}:`;
    else {
      out['content-digest'] = digest;
      notes.push("Content-Digest kept as the vector has it (it does not match the vector's body)");
    }
  }
  const input = v['signature-input'];
  const signature = v['signature'];
  if (input === undefined && signature === undefined) return { headers: out, how: 'unsigned', notes };
  if (input === undefined) {
    out['signature'] = signature ?? '';
    return { headers: out, how: 'kept', notes: [...notes, 'Signature sent without Signature-Input, as the vector'] };
  }
  const shift = options.now - vector.reference_now;
  let created: number | undefined;
  let newInput = input.replace(/;created=(\d+)/g, (_m, n: string) => {
    created = Number(n) + shift;
    return `;created=${created}`;
  });
  newInput = newInput.replace(/;expires=(\d+)/g, (_m, n: string) => {
    const expires =
      options.validitySeconds !== undefined && created !== undefined
        ? created + options.validitySeconds
        : Number(n) + shift;
    return `;expires=${expires}`;
  });
  newInput = newInput.replace(/;nonce="[^"]*"/g, () => `;nonce="${freshNonce()}"`);
  const originalKeyid = /;keyid="([^"]*)"/.exec(input)?.[1];
  if (options.keyid !== undefined && originalKeyid !== undefined) {
    const key = keys.find((k) => k.kid === options.keyid);
    const alg = key?.crv === 'Ed25519' ? 'ed25519' : 'ecdsa-p256-sha256';
    newInput = newInput.replace(/;keyid="[^"]*"/, `;keyid="${options.keyid}"`).replace(/;alg="[^"]*"/, `;alg="${alg}"`);
  }
  out['signature-input'] = newInput;
  if (signature === undefined) return { headers: out, how: 'kept', notes };
  const original = sig1Of(input, signature);
  // The contract vectors are signed by the runner with their keyid (signed-requests-runner.yaml:
  // "The runner signs vector 017 with this keyid"); 017 and 020 carry positive/001's bytes.
  const resign =
    original !== undefined &&
    (vector.requires_contract !== undefined ||
      options.keyid !== undefined ||
      verifiesWith(vector.request, original, keys));
  if (!resign) {
    out['signature'] = signature;
    notes.push("the vector's Signature bytes kept (they do not verify over the vector's own request)");
    return { headers: out, how: 'kept', notes };
  }
  const fresh = sig1Of(newInput, signature);
  const keyid = fresh?.params.get('keyid');
  const jwk = keys.find((k) => k.kid === keyid);
  const d = jwk?.['_private_d_for_test_only'] ?? jwk?.['d'];
  if (fresh === undefined || jwk === undefined || typeof d !== 'string') {
    throw new Error(`cannot re-sign ${vector.file}: keys.json has no private key for ${String(keyid)}`);
  }
  const base = buildSignatureBase({ method: live.method, url: live.url, headers: out }, fresh.list);
  if (!base.ok) throw new Error(`cannot re-sign ${vector.file} for ${live.url}: ${base.reason}`);
  const key = importPrivateKey({ ...jwk, d }, 'signed_requests');
  const data = Buffer.from(base.base, 'utf8');
  const bytes =
    fresh.params.get('alg') === 'ed25519'
      ? cryptoSign(null, data, key)
      : cryptoSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
  const encoded = bytes.toString(original.text.includes('=') || /[+/]/.test(original.text) ? 'base64' : 'base64url');
  out['signature'] = signature.replace(`:${original.text}:`, `:${encoded}:`);
  return { headers: out, how: 'resigned', notes };
}

/** The encoding of `header` when it is exactly one sha-256 of `body`; undefined otherwise (a lie, two values). */
function digestEncodingOf(body: string, header: string): 'base64' | 'base64url' | undefined {
  const m = /^sha-256=:([A-Za-z0-9+/_=-]+):$/.exec(header.trim());
  if (m === null) return undefined;
  const sum = digestOf('sha256', body);
  if (m[1] === sum.toString('base64url')) return 'base64url';
  if (m[1] === sum.toString('base64')) return 'base64';
  return undefined;
}

interface Sig1 {
  list: InnerList;
  params: Map<string, unknown>;
  /** The Signature bytes as written between the colons. */
  text: string;
}

function sig1Of(input: string, signature: string): Sig1 | undefined {
  const inputs = parseDictionary(input, { rejectDuplicateKeys: true });
  const sigs = parseDictionary(signature);
  const list = inputs?.get('sig1');
  const sig = sigs?.get('sig1');
  if (list?.kind !== 'inner-list' || sig?.kind !== 'item' || sig.value.type !== 'binary') return undefined;
  return {
    list,
    params: new Map(list.params.map(([name, item]) => [name, item.value])),
    text: sig.value.value,
  };
}

/** Whether the vector's own sig1 verifies over its own request with the public key of keys.json. */
function verifiesWith(request: SigningVector['request'], sig: Sig1, keys: Jwk[]): boolean {
  const jwk = keys.find((k) => k.kid === sig.params.get('keyid'));
  const bytes = decodeEitherBase64(sig.text);
  if (jwk === undefined || bytes === undefined) return false;
  const base = buildSignatureBase(request, sig.list);
  if (!base.ok) return false;
  try {
    const fields: Record<string, string> = { kty: String(jwk.kty), crv: String(jwk.crv), x: String(jwk.x) };
    if (jwk.y !== undefined) fields['y'] = String(jwk.y);
    const key = createPublicKey({ key: fields, format: 'jwk' });
    const data = Buffer.from(base.base, 'utf8');
    return jwk.crv === 'Ed25519'
      ? cryptoVerify(null, data, key, bytes)
      : cryptoVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, bytes);
  } catch {
    return false;
  }
}
