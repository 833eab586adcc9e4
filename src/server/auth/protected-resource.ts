import type { JsonObject } from '../../core/types.js';
import type { OAuthResourceOptions } from './auth-options.js';

/** RFC 9728 section 3: the well-known prefix, inserted before the resource's path. */
export const PROTECTED_RESOURCE_PREFIX = '/.well-known/oauth-protected-resource';

/** `/mcp` -> `/.well-known/oauth-protected-resource/mcp`; the origin (`''` or `/`) -> the prefix alone. */
export function protectedResourcePath(resourcePath: string): string {
  const trimmed = resourcePath.replace(/\/$/, '');
  return `${PROTECTED_RESOURCE_PREFIX}${trimmed}`;
}

/** The resource path a metadata path describes (`''` for the origin), or undefined when it is not one. */
export function resourcePathOf(metadataPath: string): string | undefined {
  if (metadataPath === PROTECTED_RESOURCE_PREFIX) return '';
  if (!metadataPath.startsWith(`${PROTECTED_RESOURCE_PREFIX}/`)) return undefined;
  return metadataPath.slice(PROTECTED_RESOURCE_PREFIX.length);
}

/**
 * The RFC 9728 protected-resource metadata of `resource` (the exact URL callers call, path
 * included: the `security` storyboard's `resource_equals_agent_url`).
 */
export function protectedResourceMetadata(oauth: OAuthResourceOptions, resource: string): JsonObject {
  const scopes = oauth.scopesSupported ?? oauth.requiredScopes;
  return {
    ...oauth.metadata,
    resource,
    authorization_servers: [...oauth.authorizationServers],
    bearer_methods_supported: ['header'],
    ...(scopes === undefined || scopes.length === 0 ? {} : { scopes_supported: [...scopes] }),
  };
}
