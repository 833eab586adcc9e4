import { createHash } from 'node:crypto';
import { UsageError } from './args.js';
import { principalProblem, tokenProblem } from '../server/auth/static-tokens.js';

/**
 * The principal of a token given without one: `token:` and the first 8 hex digits of its SHA-256,
 * stable across restarts (state kept in --db stays with it) and telling nothing usable of the token.
 */
export function defaultTokenPrincipal(token: string): string {
  return `token:${createHash('sha256').update(token, 'utf8').digest('hex').slice(0, 8)}`;
}

/**
 * The static tokens of `adcp serve`: each `--auth-token` value and each comma-separated entry of
 * `ADCP_SERVE_TOKENS`, as `T` or `T=principal` (split at the first `=`, so a token holds none).
 * Throws UsageError naming the entry's position and source, never the token.
 */
export function readServeTokens(flags: readonly string[], env: string | undefined): Map<string, string> {
  const entries = [
    ...flags.map((value, i) => [value, `--auth-token #${i + 1}`] as const),
    ...(env ?? '')
      .split(',')
      .map((value) => value.trim())
      .filter((value) => value !== '')
      .map((value, i) => [value, `ADCP_SERVE_TOKENS entry ${i + 1}`] as const),
  ];
  const tokens = new Map<string, string>();
  for (const [value, where] of entries) {
    const equals = value.indexOf('=');
    const token = equals === -1 ? value : value.slice(0, equals);
    const principal = equals === -1 ? defaultTokenPrincipal(token) : value.slice(equals + 1);
    const problem = tokenProblem(token) ?? principalProblem(principal);
    if (problem !== undefined) throw new UsageError(`${where}: ${problem} (give T or T=principal).`);
    const known = tokens.get(token);
    if (known !== undefined && known !== principal) {
      throw new UsageError(`${where}: this token is already given to another principal.`);
    }
    tokens.set(token, principal);
  }
  return tokens;
}

/**
 * The principals `--live-principal` marks live (comply-controller-mode-gate): only with
 * `--test-controller`, and each must be a principal of the tokens (a typo would otherwise leave the
 * gate open for the account meant to be refused). Throws UsageError.
 */
export function readLivePrincipals(
  flags: readonly string[],
  tokens: ReadonlyMap<string, string>,
  testController: boolean,
): Set<string> {
  if (flags.length === 0) return new Set();
  if (!testController) throw new UsageError('--live-principal goes with --test-controller.');
  const known = new Set(tokens.values());
  for (const [i, principal] of flags.entries()) {
    if (!known.has(principal)) {
      throw new UsageError(
        `--live-principal #${i + 1}: no --auth-token or ADCP_SERVE_TOKENS entry has this principal (give T=principal there).`,
      );
    }
  }
  return new Set(flags);
}

/**
 * The principals `--passthrough-principal` marks as buyer agents onboarded passthrough-only (no
 * payments relationship: only the operator is invoiced). Each must be a principal of the tokens:
 * the per-agent billing gate is only for callers whose identity is established. Throws UsageError.
 */
export function readPassthroughPrincipals(flags: readonly string[], tokens: ReadonlyMap<string, string>): string[] {
  const known = new Set(tokens.values());
  for (const [i, principal] of flags.entries()) {
    if (!known.has(principal)) {
      throw new UsageError(
        `--passthrough-principal #${i + 1}: no --auth-token or ADCP_SERVE_TOKENS entry has this principal (give T=principal there).`,
      );
    }
  }
  return [...new Set(flags)];
}
