import type { IncomingMessage } from 'node:http';
import { SIGNING_KEY_PREFIX } from './auth-options.js';
import type { JsonObject } from '../../core/types.js';
import { toJwksSource, type Jwk, type JwksInput, type JwksSource } from '../../signing/jwks.js';
import { remoteJwks, type RemoteJwksOptions } from '../../signing/remote-jwks.js';
import { MemoryReplayStore, type ReplayStore } from '../../signing/replay-store.js';
import type { RevocationSource } from '../../signing/revocation.js';
import { requestCallOf } from '../../signing/request-call.js';
import { a2aMethodRoute } from '../../core/a2a-wire.js';
import { OPERATION_SOURCES, type OperationResolution } from '../../core/resolve-operation.js';
import type { RequestSignatureError } from '../../signing/signature-codes.js';
import {
  requestSignatureProfile,
  verifyRequestSignature,
  type ContentDigestPolicy,
  type RequestSigningProfileVersion,
  type VerifyRequestSignatureOptions,
} from '../../signing/verify-request-signature.js';

/** `createAdcpServer({ requestSigning })`: verify RFC 9421 signatures on incoming requests. */
export interface RequestSigningServerOptions {
  /** The signers' public keys (a `{ keys }` set or an array). One of `jwks`, `jwksUrl`, `resolveKeys`. */
  jwks?: { keys: Jwk[] } | Jwk[];
  /** A JWKS URL, fetched over https without redirects, size-capped and cached (`remoteJwks`). */
  jwksUrl?: string;
  /** Options of the `jwksUrl` fetch (cache, cooldown, caps, injected fetch). */
  jwksFetch?: RemoteJwksOptions;
  /** Your own key lookup (a `JwksSource`: `get(keyid)`, optional `refresh()`). */
  resolveKeys?: JwksSource;
  /** AdCP operations whose unsigned calls without another credential are refused (`request_signature_required`). */
  requiredFor?: string[];
  /**
   * AdCP operations in shadow mode (the step between `supportedFor` and `requiredFor`): a missing or
   * failed (but well-formed) signature is reported to `onWarning` and the call continues only under
   * another credential, with no signer identity; without one a failed signature is refused as
   * unauthenticated. A malformed signature header pair is always refused.
   */
  warnFor?: string[];
  /** AdCP operations for which signatures are verified when present (advertised; `requiredFor` and `warnFor` are added). */
  supportedFor?: string[];
  /** JSON-RPC methods (`tasks/cancel`, ...) whose unsigned calls without another credential are refused. */
  protocolMethodsRequiredFor?: string[];
  /** JSON-RPC methods in shadow mode (as `warnFor`). */
  protocolMethodsWarnFor?: string[];
  /** JSON-RPC methods whose signatures are verified when present (advertised; the other method lists are added). */
  protocolMethodsSupportedFor?: string[];
  /** Called for each call let through under `warnFor` with a missing or failed signature (the code says which). */
  onWarning?: (warning: { code: RequestSignatureError; method?: string; operation?: string }) => void;
  /** `content-digest` coverage: `required`, `optional` (the wire's `either`, default) or `forbidden`. */
  coverContentDigest?: ContentDigestPolicy;
  /** Wire profile: `3.1` (default, legacy Base64URL binary values) or `3.2` (RFC 8941 sf-binary; digest required). */
  profile?: RequestSigningProfileVersion;
  /** The `(keyid, nonce)` replay cache; a fleet shares one (SQLite/PostgreSQL replay stores). Default in memory, 1,000,000 per keyid. */
  replay?: ReplayStore;
  /** Revocation list (`RevocationList`, `remoteRevocationList`). Default: none revoked. */
  revocation?: RevocationSource;
  /** The scheme signers used, when a TLS terminator sits in front (default: the connection's own). */
  publicScheme?: 'https' | 'http';
  /**
   * The call's principal from the verified keyid and the other credential's principal (null when
   * none): how a seller maps a signing key to its account (`({ keyid }) => accounts.get(keyid) ??
   * null`; null refuses the call). Default: the other credential's principal when there is one,
   * else `signing-key:<keyid>`, a principal of its own kind (never a token user's of that name).
   */
  principal?: (verified: { keyid: string }, authenticated: string | null) => string | null;
  /** Clock for the signature window (ms). Default `Date.now`. */
  now?: () => number;
}

export type AdmitResult =
  | { ok: true; signed: false }
  | { ok: true; signed: true; keyid: string }
  /** `unauthenticated`: a `warnFor` failure with no other credential, answered as any unauthenticated call. */
  | { ok: false; code: RequestSignatureError; unauthenticated?: true };

export interface RequestSigningVerifier {
  /**
   * Runs the pre-check and the checklist over one received request with its raw body and the
   * operation the server resolved from that body (`resolveParsedOperation`; the dispatcher gets the
   * same resolution). An unresolvable request is `request_body_malformed` before anything else.
   */
  admit(
    req: IncomingMessage,
    body: Buffer,
    resolution: OperationResolution,
    otherCredential: boolean,
  ): Promise<AdmitResult>;
  /** The `request_signing` block `get_adcp_capabilities` advertises. */
  readonly capability: JsonObject;
  readonly options: RequestSigningServerOptions;
}

/** What the server tells its verifier about itself. */
export interface RequestSigningRuntime {
  /**
   * True while other requests are in flight: the signature check (step 10) then runs on the thread
   * pool; otherwise on the event loop, where a lone request gets its answer sooner.
   */
  busy?: () => boolean;
  /**
   * The authority (`host[:port]`) a request must have been signed for: the server's public URL or
   * listen address (create-adcp-server.ts). The verified URL is built from it, never from `Host`,
   * and a `Host` naming anything else fails step 10 (cross-seller replay). Default: the `Host` header.
   */
  authority?: (req: IncomingMessage) => string;
}

/** Builds the server's verifier once, refusing a bad configuration with a TypeError. */
export function createRequestSigningVerifier(
  options: RequestSigningServerOptions,
  runtime: RequestSigningRuntime = {},
): RequestSigningVerifier {
  const sources = [options.jwks, options.jwksUrl, options.resolveKeys].filter((s) => s !== undefined);
  if (sources.length !== 1) throw new TypeError('requestSigning: pass exactly one of jwks, jwksUrl or resolveKeys');
  const requiredFor = options.requiredFor ?? [];
  const warnFor = options.warnFor ?? [];
  const protocolMethods = options.protocolMethodsRequiredFor ?? [];
  const protocolWarn = options.protocolMethodsWarnFor ?? [];
  // security.md "Protocol-method coverage": the namespaces are disjoint, checked at configuration time.
  for (const name of [...requiredFor, ...warnFor, ...(options.supportedFor ?? [])]) {
    if (typeof name !== 'string' || name.includes('/') || name === '') {
      throw new TypeError(
        `requestSigning: '${String(name)}' is not an AdCP operation name (methods go in protocolMethodsRequiredFor)`,
      );
    }
  }
  // A JSON-RPC method is `namespace/name` (`tasks/cancel`, `message/send`) or an A2A 1.0 method
  // (`SendMessage`, `GetTask`): listing `SendMessage` asks a signature on every 1.0 message.
  for (const name of [...protocolMethods, ...protocolWarn, ...(options.protocolMethodsSupportedFor ?? [])]) {
    if (
      typeof name !== 'string' ||
      name === 'tools/call' ||
      !(name.includes('/') || a2aMethodRoute(name) !== undefined)
    ) {
      throw new TypeError(
        `requestSigning: '${String(name)}' is not a JSON-RPC method name (operations go in requiredFor)`,
      );
    }
  }
  const policy = options.coverContentDigest ?? (options.profile === '3.2' ? 'required' : 'optional');
  // Checked once at configuration: a 3.2 profile without 'required' digest coverage throws here.
  requestSignatureProfile(policy, options.profile);
  const jwks: JwksInput =
    options.jwksUrl !== undefined
      ? remoteJwks(options.jwksUrl, options.jwksFetch)
      : toJwksSource((options.jwks ?? options.resolveKeys) as JwksInput);
  const replay = options.replay ?? new MemoryReplayStore({ perKeyidCap: 1_000_000 });
  const busy = runtime.busy;
  const supportedFor = [...new Set([...(options.supportedFor ?? []), ...requiredFor, ...warnFor])];
  const capability: JsonObject = {
    supported: true,
    covers_content_digest: policy === 'optional' ? 'either' : policy,
    required_for: [...requiredFor],
    supported_for: supportedFor,
    // The lists match the operation resolved from MCP tools/call and the A2A invocation's skill.
    operation_sources: [...OPERATION_SOURCES],
  };
  if (warnFor.length > 0) capability.warn_for = [...warnFor];
  const protocolSupported = [
    ...new Set([...(options.protocolMethodsSupportedFor ?? []), ...protocolMethods, ...protocolWarn]),
  ];
  if (protocolSupported.length > 0) capability.protocol_methods_supported_for = protocolSupported;
  if (protocolWarn.length > 0) capability.protocol_methods_warn_for = [...protocolWarn];
  if (protocolMethods.length > 0) capability.protocol_methods_required_for = [...protocolMethods];

  // The verifier's options but the call's own two, built once.
  const verifyOptions: VerifyRequestSignatureOptions = {
    jwks,
    replay,
    ...(options.revocation === undefined ? {} : { revocation: options.revocation }),
    ...(options.now === undefined ? {} : { now: options.now }),
    coverContentDigest: policy,
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    requiredFor,
    warnFor,
    protocolMethodsRequiredFor: protocolMethods,
    protocolMethodsWarnFor: protocolWarn,
    ...(busy === undefined ? {} : { offThread: busy }),
  };

  const urlOf = (req: IncomingMessage): string => {
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    const scheme = options.publicScheme ?? (encrypted ? 'https' : 'http');
    return `${scheme}://${runtime.authority?.(req) ?? req.headers.host ?? ''}${req.url ?? '/'}`;
  };

  return {
    capability,
    options,
    async admit(req, body, resolution, otherCredential) {
      const call = requestCallOf(resolution);
      const resolveOperation = () => resolution;
      const result = await verifyRequestSignature(
        { method: req.method ?? 'GET', url: urlOf(req), headers: req.headers, body },
        { ...verifyOptions, resolveOperation, otherCredential },
      );
      if (!result.ok) {
        return result.unauthenticated === true
          ? { ok: false, code: result.code, unauthenticated: true }
          : { ok: false, code: result.code };
      }
      if (result.signed) return { ok: true, signed: true, keyid: result.keyid };
      if (result.warning !== undefined) {
        const warning: { code: RequestSignatureError; method?: string; operation?: string } = { code: result.warning };
        if (call.method !== undefined) warning.method = call.method;
        if (call.operation !== undefined) warning.operation = call.operation;
        try {
          options.onWarning?.(warning);
        } catch {
          // A reporting hook must not decide the call.
        }
      }
      return { ok: true, signed: false };
    },
  };
}

/** The principal of a verified call (see `RequestSigningServerOptions.principal`). */
export function signedPrincipal(
  options: RequestSigningServerOptions,
  keyid: string,
  authenticated: string | null,
): string | null {
  if (options.principal !== undefined) return options.principal({ keyid }, authenticated);
  return authenticated ?? `${SIGNING_KEY_PREFIX}${keyid}`;
}
