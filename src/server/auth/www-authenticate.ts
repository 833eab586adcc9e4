/** An RFC 9110 quoted-string body: `\` and `"` escaped, anything outside printable ASCII a space. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/[^\u0020-\u007e]/g, ' ')}"`;
}

export interface BearerChallenge {
  /** The protection space: the endpoint's URL. */
  realm: string;
  /** RFC 6750 section 3.1 error code; absent when the request carried no credentials (section 3). */
  error?: 'invalid_token' | 'invalid_request' | 'insufficient_scope';
  description?: string;
  /** Scopes the resource needs (space-separated on the wire). */
  scope?: string[];
  /** RFC 9728 section 5.1: where the protected-resource metadata is. */
  resourceMetadata?: string;
}

/** The `WWW-Authenticate: Bearer ...` value of a 401/403 (RFC 6750 section 3, RFC 9728 section 5.1). */
export function bearerChallenge(challenge: BearerChallenge): string {
  const params = [`realm=${quoted(challenge.realm)}`];
  if (challenge.error !== undefined) params.push(`error=${quoted(challenge.error)}`);
  if (challenge.description !== undefined) params.push(`error_description=${quoted(challenge.description)}`);
  if (challenge.scope !== undefined && challenge.scope.length > 0)
    params.push(`scope=${quoted(challenge.scope.join(' '))}`);
  if (challenge.resourceMetadata !== undefined) params.push(`resource_metadata=${quoted(challenge.resourceMetadata)}`);
  return `Bearer ${params.join(', ')}`;
}
