import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearerChallenge } from './www-authenticate.js';

describe('bearerChallenge', () => {
  it('names realm only when no credentials were sent (RFC 6750 section 3)', () => {
    assert.equal(bearerChallenge({ realm: 'https://s.example/mcp' }), 'Bearer realm="https://s.example/mcp"');
  });

  it('adds error, description, scope and resource_metadata in that order', () => {
    assert.equal(
      bearerChallenge({
        realm: 'https://s.example/mcp',
        error: 'insufficient_scope',
        description: 'The access token lacks a required scope',
        scope: ['adcp:read', 'adcp:write'],
        resourceMetadata: 'https://s.example/.well-known/oauth-protected-resource/mcp',
      }),
      'Bearer realm="https://s.example/mcp", error="insufficient_scope", error_description="The access token lacks a required scope", scope="adcp:read adcp:write", resource_metadata="https://s.example/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('escapes quotes and backslashes and blanks control characters', () => {
    assert.equal(bearerChallenge({ realm: 'a"b\\c\r\nd' }), 'Bearer realm="a\\"b\\\\c  d"');
  });
});
