import type { JsonObject } from '../../core/types.js';
import type { AdcpAuthOptions } from './auth-options.js';

/**
 * The agent card's security declaration for `auth`, in both A2A shapes at once: each
 * `securitySchemes` entry carries the v0.3 OpenAPI form (`type`, `scheme`, `flows`) and the 1.0
 * one-of member (`httpAuthSecurityScheme`, `oauth2SecurityScheme`), which each reader ignores of
 * the other; `security` is the v0.3 requirement list, `securityRequirements` the 1.0 one. Each
 * entry is an alternative (a static token or an OAuth token). Empty without `auth`.
 */
export function agentCardSecurity(auth: AdcpAuthOptions | undefined): JsonObject {
  if (auth === undefined) return {};
  const schemes: JsonObject = {};
  const alternatives: [string, string[]][] = [];
  if (auth.tokens !== undefined) {
    const description = 'AdCP API key: Authorization: Bearer <key>';
    schemes.bearer = {
      type: 'http',
      scheme: 'bearer',
      description,
      httpAuthSecurityScheme: { scheme: 'Bearer', description },
    };
    alternatives.push(['bearer', []]);
  }
  if (auth.oauth !== undefined) {
    const issuer = auth.oauth.authorizationServers[0]!.replace(/\/$/, '');
    const oauth2MetadataUrl = `${issuer}/.well-known/oauth-authorization-server`;
    const description = 'OAuth 2.1 access token (RFC 9728 metadata at /.well-known/oauth-protected-resource/a2a)';
    schemes.oauth2 = {
      type: 'oauth2',
      description,
      flows: {},
      oauth2MetadataUrl,
      oauth2SecurityScheme: { description, oauth2MetadataUrl },
    };
    alternatives.push(['oauth2', [...(auth.oauth.requiredScopes ?? [])]]);
  }
  return {
    securitySchemes: schemes,
    security: alternatives.map(([name, scopes]) => ({ [name]: scopes })),
    securityRequirements: alternatives.map(([name, scopes]) => ({ schemes: { [name]: { list: scopes } } })),
  };
}
