import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../../core/types.js';
import { isJsonObject } from '../../core/json-object.js';
import { DEFAULT_PUBLIC_TOOLS, type AdcpAuthOptions } from './auth-options.js';
import { mayCallAnonymously } from './anonymous-call.js';
import type { OperationResolution } from '../../core/resolve-operation.js';
import { createBearerAuth, type EndpointResource } from './bearer-auth.js';
import { protectedResourceMetadata, protectedResourcePath, resourcePathOf } from './protected-resource.js';
import { bearerChallenge } from './www-authenticate.js';

/** A refusal to send: status, `WWW-Authenticate` and a JSON-RPC error body. */
export interface AuthRefusal {
  status: 401 | 403;
  challenge: string;
  body: JsonObject;
}

export type Identity = { ok: true; principal: string | undefined } | ({ ok: false } & AuthRefusal);

/** `createAdcpServer`'s side of `auth`: identify callers, gate anonymous calls, serve RFC 9728 metadata. */
export interface RequestAuth {
  /** The principal of the request's credentials (undefined without any), or the refusal of bad ones. */
  identify(req: IncomingMessage, resource: EndpointResource): Promise<Identity>;
  /** Whether a caller without credentials may make this call (see `mayCallAnonymously`). */
  allowsAnonymous(resolution: OperationResolution): boolean;
  /** The 401 for a protected call made without credentials. */
  missing(resource: EndpointResource, body: unknown): AuthRefusal;
  /** The protected-resource metadata served at `path` (undefined: not ours, or OAuth is off). */
  metadataAt(path: string, origin: string, servedPaths: readonly string[]): JsonObject | undefined;
}

/** The reserved JSON-RPC code of an auth refusal before dispatch (transport-errors.md, "Reserved JSON-RPC Codes"). */
const AUTH_RPC_CODE = -32028;

/**
 * Builds the request side of `auth`. `release` picks the AdCP error code: 3.0 has only
 * `AUTH_REQUIRED`; 3.1 splits it into `AUTH_MISSING` and `AUTH_INVALID`.
 */
export function createRequestAuth(options: AdcpAuthOptions, release: string): RequestAuth {
  const bearer = createBearerAuth(options);
  const publicTools = new Set<string>(options.publicTools ?? DEFAULT_PUBLIC_TOOLS);
  const legacyCodes = release.startsWith('3.0');
  const oauth = bearer.oauth;
  const challengeBase = (resource: EndpointResource) => ({
    realm: resource.url,
    ...(oauth === undefined
      ? {}
      : {
          resourceMetadata: `${resource.origin}${protectedResourcePath(new URL(resource.url).pathname)}`,
          ...(oauth.requiredScopes === undefined ? {} : { scope: oauth.requiredScopes }),
        }),
  });
  const rpcBody = (id: unknown, code: string, message: string, recovery: string): JsonObject => ({
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: { code: AUTH_RPC_CODE, message, data: { adcp_error: { code, message, recovery } } },
  });

  return {
    async identify(req, resource) {
      const header = req.headersDistinct['authorization'];
      const outcome = await bearer.check(header, resource);
      if (outcome.ok) return { ok: true, principal: outcome.principal };
      const message = `${outcome.description}.`;
      return {
        ok: false,
        status: outcome.status,
        challenge: bearerChallenge({
          ...challengeBase(resource),
          error: outcome.error,
          description: outcome.description,
        }),
        body:
          outcome.status === 403
            ? rpcBody(null, 'PERMISSION_DENIED', message, 'correctable')
            : rpcBody(
                null,
                legacyCodes ? 'AUTH_REQUIRED' : 'AUTH_INVALID',
                message,
                legacyCodes ? 'correctable' : 'terminal',
              ),
      };
    },
    allowsAnonymous: (resolution) => mayCallAnonymously(resolution, publicTools),
    missing(resource, body) {
      const message = 'Authentication required: send Authorization: Bearer <token>.';
      const id = isJsonObject(body) ? body.id : undefined;
      return {
        status: 401,
        challenge: bearerChallenge(challengeBase(resource)),
        body: rpcBody(id, legacyCodes ? 'AUTH_REQUIRED' : 'AUTH_MISSING', message, 'correctable'),
      };
    },
    metadataAt(path, origin, servedPaths) {
      if (oauth === undefined) return undefined;
      const resourcePath = resourcePathOf(path);
      if (resourcePath === undefined || (resourcePath !== '' && !servedPaths.includes(resourcePath))) return undefined;
      return protectedResourceMetadata(oauth, `${origin}${resourcePath}`);
    },
  };
}
