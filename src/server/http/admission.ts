// The admission pipeline of createAdcpServer: every request passes these stages, in this order,
// until one answers; a request no stage answered goes to its endpoint. The order is the security
// rule (docs/architecture.md, "Admission pipeline"): what is read of a request, and what a caller
// learns, depends on which checks came before.
import type { IncomingMessage } from 'node:http';
import { parseJsonStrict } from '../../core/json.js';
import { resolveParsedOperation, type OperationResolution } from '../../core/resolve-operation.js';
import type { JsonObject } from '../../core/types.js';
import { anonymousPrincipal } from '../auth/anonymous-principal.js';
import type { AuthRefusal, RequestAuth } from '../auth/request-auth.js';
import { signedPrincipal, type RequestSigningVerifier } from '../auth/request-signing.js';
import { rpcErrorAnswer, type Answer } from './answer.js';
import { healthAnswer, isHealthPath } from './health-endpoints.js';
import { checkHostAndOrigin, hasSeveralValues, hasSignature, isJsonContentType, readBody } from './http-guard.js';
import type { Readiness } from './readiness.js';
import { endpointAt, type Endpoint } from './server-paths.js';

/** The resolution of a request with no body to resolve. */
export const NOTHING_TO_RESOLVE: OperationResolution = { ok: true, kind: 'none' };

/** The caller went away while its body was read: there is no one to answer. */
export const ABANDONED = 'abandoned';

/** A stage's verdict: an answer that ends the request, `ABANDONED`, or undefined to go on. */
export type Verdict = Answer | typeof ABANDONED | undefined;

/** One request as admission learns it: each stage fills in what it establishes. */
export interface AdmissionRequest {
  readonly req: IncomingMessage;
  /** The URL path, without the query. */
  readonly path: string;
  /** The endpoint the path names (`endpoint`). */
  endpoint: Endpoint | undefined;
  /** Who is calling (`identifyCaller`, `signature`); null: `authenticate` said no. */
  principal: string | null;
  /** Whether a credential vouched for `principal` (an anonymous caller has a principal too). */
  authenticated: boolean;
  /** The body as received (`readBodyCapped`); empty for a GET. */
  bytes: Buffer;
  /** The body's text (`readBodyCapped`); undefined for a GET. */
  text: string | undefined;
  /** The parsed body (`parseStrict`). */
  body: unknown;
  /** The one operation resolution (`operation`), which the signature gate, the anonymous-call rule and dispatch all take. */
  resolution: OperationResolution;
}

/** What the stages read of the server's configuration. */
export interface AdmissionConfig {
  readonly readiness: Readiness;
  /** The Host/Origin rule (see `checkHostAndOrigin`); it tightens once `listen` knows its port. */
  hostRule(): { allowed: ReadonlySet<string> | undefined; loopbackPort?: number; publicHost?: string };
  /** The public document served at a GET path (cards, JWKS, RFC 9728 metadata), or undefined. */
  publicDocument(req: IncomingMessage, path: string): JsonObject | undefined;
  readonly requestAuth: RequestAuth | undefined;
  readonly authenticate: ((req: IncomingMessage) => string | null | Promise<string | null>) | undefined;
  readonly signing: RequestSigningVerifier | undefined;
  /** The origin the server answers for: its public URL, else its listen address, else the connection's. */
  originOf(req: IncomingMessage): string;
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
}

export type AdmissionStage = (request: AdmissionRequest, config: AdmissionConfig) => Verdict | Promise<Verdict>;

/** A request admission starts with: nothing established yet. */
export function admissionRequest(req: IncomingMessage, path: string): AdmissionRequest {
  return {
    req,
    path,
    endpoint: undefined,
    principal: null,
    authenticated: false,
    bytes: Buffer.alloc(0),
    text: undefined,
    body: undefined,
    resolution: NOTHING_TO_RESOLVE,
  };
}

function signatureRefusal(code: string, extra: JsonObject = {}): Answer {
  return { status: 401, headers: { 'www-authenticate': `Signature error="${code}"` }, body: { error: code, ...extra } };
}

function authRefusal(refusal: AuthRefusal, connection?: Answer['connection']): Answer {
  return {
    status: refusal.status,
    headers: { 'www-authenticate': refusal.challenge },
    body: refusal.body,
    ...(connection === undefined ? {} : { connection }),
  };
}

const UNAUTHORIZED: Answer = {
  status: 401,
  headers: { 'www-authenticate': 'Bearer' },
  body: { error: 'Unauthorized' },
};

/**
 * `/healthz` and `/readyz` first: a balancer probes by address and without credentials, so probes
 * pass no Host check and no authentication; no body is read and nothing internal is said.
 */
export function probes(request: AdmissionRequest, config: AdmissionConfig): Verdict | Promise<Verdict> {
  return isHealthPath(request.path) ? healthAnswer(request.req, request.path, config.readiness) : undefined;
}

/**
 * 403 for a `Host` or `Origin` that does not name this server (on loopback, with its port): a
 * DNS-rebinding page is refused before any document is served or any credential is read.
 */
export function hostAndOrigin(request: AdmissionRequest, config: AdmissionConfig): Verdict {
  const rule = config.hostRule();
  const refused = checkHostAndOrigin(request.req, rule.allowed, rule.loopbackPort, rule.publicHost);
  return refused === undefined ? undefined : { status: 403, body: { error: refused }, connection: 'close-if-unread' };
}

/**
 * A GET of a public document (the MCP server card, the A2A agent cards, the JWKS, RFC 9728
 * metadata) is served without credentials: a client reads them to learn how to authenticate. It
 * comes after the Host check; the URLs in it come from configuration, never from `Host`.
 */
export function publicDocuments(request: AdmissionRequest, config: AdmissionConfig): Verdict {
  if (request.req.method !== 'GET') return undefined;
  const document = config.publicDocument(request.req, request.path);
  return document === undefined ? undefined : { status: 200, body: document };
}

/** Only `/mcp`, `/a2a` and `/a2a/legacy` go further: anything else is 404, its body unread. */
export function endpoint(request: AdmissionRequest): Verdict {
  request.endpoint = endpointAt(request.path);
  return request.endpoint === undefined
    ? { status: 404, body: { error: 'Not found' }, connection: 'close-if-unread' }
    : undefined;
}

/**
 * A POST must be `application/json` (UTF-8): 415 before credentials are read or the body is
 * (a cross-site form or `text/plain` POST needs no CORS preflight). A signed request whose
 * Content-Type has several values is first the verifier's `request_signature_header_malformed`
 * (checklist step 1, vector 022; decision 0057).
 */
export async function mediaType(request: AdmissionRequest, config: AdmissionConfig): Promise<Verdict> {
  const { req } = request;
  if (req.method !== 'POST' || isJsonContentType(req.headers['content-type'])) return undefined;
  if (config.signing !== undefined && hasSeveralValues(req, 'content-type') && hasSignature(req)) {
    const admitted = await config.signing.admit(req, Buffer.alloc(0), NOTHING_TO_RESOLVE, false);
    if (!admitted.ok && admitted.code === 'request_signature_header_malformed') {
      return { ...signatureRefusal(admitted.code), connection: 'close-if-unread' };
    }
  }
  return {
    ...rpcErrorAnswer(415, -32600, 'Unsupported Media Type: send Content-Type: application/json'),
    connection: 'close-if-unread',
  };
}

/**
 * Who is calling, from the headers alone: with `auth`, a bad or insufficient credential is refused
 * here (401/403 with its challenge) before the body is read, even on a public call (decision
 * 0063); with `authenticate`, its answer (null: refused, see `refuseUnidentified`); without
 * either, or without a credential, an anonymous principal per address (`anonymous@...`).
 */
export async function identifyCaller(request: AdmissionRequest, config: AdmissionConfig): Promise<Verdict> {
  const { req } = request;
  if (config.requestAuth !== undefined) {
    const origin = config.originOf(req);
    const identity = await config.requestAuth.identify(req, { url: `${origin}${request.path}`, origin });
    if (!identity.ok) return authRefusal(identity, 'close-if-unread');
    request.authenticated = identity.principal !== undefined;
    request.principal = identity.principal ?? anonymousPrincipal(req.socket.remoteAddress);
    return undefined;
  }
  if (config.authenticate === undefined) {
    request.principal = anonymousPrincipal(req.socket.remoteAddress);
    return undefined;
  }
  try {
    request.principal = await config.authenticate(req);
  } catch {
    request.principal = null; // a throwing hook refuses, as null does
  }
  request.authenticated = request.principal !== null;
  return undefined;
}

/**
 * 401 before the body is read when `authenticate` said no and no request signature could still
 * identify the caller.
 */
export function refuseUnidentified(request: AdmissionRequest, config: AdmissionConfig): Verdict {
  if (request.principal !== null || (config.signing !== undefined && hasSignature(request.req))) return undefined;
  return { ...UNAUTHORIZED, connection: 'close-if-unread' };
}

/**
 * A POST body is read up to `maxBodyBytes` (413 and the connection closed beyond it, from the
 * declared length when there is one) and must be well-formed UTF-8 (never replaced with U+FFFD;
 * decision 0031). A2A takes only POST (405).
 */
export async function readBodyCapped(request: AdmissionRequest, config: AdmissionConfig): Promise<Verdict> {
  const { req } = request;
  if (req.method !== 'POST') {
    return request.endpoint === 'mcp' ? undefined : rpcErrorAnswer(405, -32600, 'A2A JSON-RPC takes POST');
  }
  const read = await readBody(req, config.maxBodyBytes);
  if (read.ok) {
    request.bytes = read.bytes;
    request.text = read.text;
    return undefined;
  }
  if (read.reason === 'too_large') {
    return { ...rpcErrorAnswer(413, -32600, `Request body over ${config.maxBodyBytes} bytes`), connection: 'close' };
  }
  if (read.reason === 'invalid_utf8')
    return rpcErrorAnswer(400, -32700, 'Parse error: the body is not well-formed UTF-8');
  return ABANDONED;
}

/**
 * The body is parsed strictly: a duplicate key or nesting deeper than `maxJsonDepth` is refused
 * (decision 0031). With request signing, a duplicate key is `request_body_malformed` only after a
 * signature on it was verified (step 14 comes after the nonce is burned at step 13); an unsigned
 * one resolves to no operation and is refused the same (erratum rule 1, decision 0101).
 */
export async function parseStrict(request: AdmissionRequest, config: AdmissionConfig): Promise<Verdict> {
  if (request.text === undefined) return undefined;
  const { maxBodyBytes, maxJsonDepth, signing } = config;
  const parsed = parseJsonStrict(request.text, { maxBytes: maxBodyBytes, maxDepth: maxJsonDepth });
  if (parsed.ok) {
    request.body = parsed.value;
    return undefined;
  }
  if (parsed.reason === 'duplicate_key' && signing !== undefined) {
    const admitted = hasSignature(request.req)
      ? await signing.admit(request.req, request.bytes, NOTHING_TO_RESOLVE, false)
      : undefined;
    return signatureRefusal(admitted === undefined || admitted.ok ? 'request_body_malformed' : admitted.code);
  }
  if (parsed.reason === 'too_deep') {
    const message = `Invalid Request: JSON nested deeper than ${maxJsonDepth} levels`;
    return rpcErrorAnswer(400, -32600, message, {
      adcp_error: { code: 'INVALID_REQUEST', message: `${message}.`, recovery: 'correctable' },
    });
  }
  return rpcErrorAnswer(
    400,
    -32700,
    parsed.reason === 'duplicate_key' ? 'Parse error: duplicate object key' : 'Parse error',
  );
}

/**
 * The operation is resolved once, here, from the parsed body (security.md, "Operation resolution
 * over A2A"; decision 0101), and nothing later resolves it again. Unresolvable: with request
 * signing, 401 before any signature header is looked at (fail closed); without, a batch is refused
 * on every endpoint and any MCP request that names no operation (400); A2A answers its own error.
 */
export function operation(request: AdmissionRequest, config: AdmissionConfig): Verdict {
  if (request.text === undefined) return undefined;
  const resolution = resolveParsedOperation(request.body);
  request.resolution = resolution;
  if (resolution.ok) return undefined;
  if (config.signing !== undefined) return signatureRefusal(resolution.code, { message: resolution.reason });
  if (Array.isArray(request.body) || request.endpoint === 'mcp') {
    return rpcErrorAnswer(400, -32600, `Invalid Request: ${resolution.reason}`);
  }
  return undefined;
}

/**
 * With request signing, the RFC 9421 checklist (security.md, "Verifier checklist (requests)",
 * steps 1-13: nonce burned) runs over the received bytes and the resolved operation before
 * anything is dispatched. A verified signature names the principal (decision 0123); a `warnFor`
 * failure without another credential is answered as any unauthenticated call (decision 0057).
 */
export async function signature(request: AdmissionRequest, config: AdmissionConfig): Promise<Verdict> {
  const { signing } = config;
  if (signing === undefined) return undefined;
  const vouched = request.authenticated ? request.principal : null;
  const admitted = await signing.admit(request.req, request.bytes, request.resolution, vouched !== null);
  if (!admitted.ok && admitted.unauthenticated === true) return missingCredential(request, config);
  if (!admitted.ok) return signatureRefusal(admitted.code);
  if (admitted.signed) {
    request.principal = signedPrincipal(signing.options, admitted.keyid, vouched);
    request.authenticated = request.principal !== null;
  }
  return undefined;
}

/**
 * With `auth`, a caller no credential vouched for makes only the calls `publicTools` and protocol
 * discovery allow (decision 0063), judged on the resolved operation.
 */
export function anonymousPolicy(request: AdmissionRequest, config: AdmissionConfig): Verdict {
  const { requestAuth } = config;
  if (requestAuth === undefined || request.authenticated || requestAuth.allowsAnonymous(request.resolution)) {
    return undefined;
  }
  return missingCredential(request, config);
}

/** Last: no principal, no dispatch (`authenticate` said no and no signature named one). */
export function principalRequired(request: AdmissionRequest): Verdict {
  return request.principal === null ? UNAUTHORIZED : undefined;
}

/** The answer to a call that needed a credential and had none: `auth`'s 401, else a bare Bearer 401. */
function missingCredential(request: AdmissionRequest, config: AdmissionConfig): Answer {
  const origin = config.originOf(request.req);
  const refusal = config.requestAuth?.missing({ url: `${origin}${request.path}`, origin }, request.body);
  return refusal === undefined ? UNAUTHORIZED : authRefusal(refusal);
}

/** The stages, in order. Each one's doc comment is the rule it holds. */
export const ADMISSION_STAGES: readonly AdmissionStage[] = [
  probes,
  hostAndOrigin,
  publicDocuments,
  endpoint,
  mediaType,
  identifyCaller,
  refuseUnidentified,
  readBodyCapped,
  parseStrict,
  operation,
  signature,
  anonymousPolicy,
  principalRequired,
];

/** A request every stage let through, with what they established. */
export interface Admitted {
  readonly endpoint: Endpoint;
  readonly principal: string;
  readonly body: unknown;
  readonly resolution: OperationResolution;
}

/**
 * Runs `stages` over one request until one answers. A stage that answers synchronously is not
 * awaited (no microtask per stage on the hot path).
 */
export async function admit(
  request: AdmissionRequest,
  config: AdmissionConfig,
  stages: readonly AdmissionStage[] = ADMISSION_STAGES,
): Promise<Answer | typeof ABANDONED | Admitted> {
  for (const stage of stages) {
    const pending = stage(request, config);
    const verdict = pending instanceof Promise ? await pending : pending;
    if (verdict !== undefined) return verdict;
  }
  const { endpoint: admittedTo, principal } = request;
  // Unreachable with ADMISSION_STAGES (`endpoint` and `principalRequired` settle both).
  if (admittedTo === undefined || principal === null) return UNAUTHORIZED;
  return { endpoint: admittedTo, principal, body: request.body, resolution: request.resolution };
}
