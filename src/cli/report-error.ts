import { UsageError, printable, usageError } from './args.js';
import { EXIT, type CliIo } from './io.js';
import { isAdcpWireError } from '../core/wire-error.js';
import { safeJson } from './safe-json.js';

/** Longest message printed; a wire error's message quotes at most a few capped seller strings. */
const MESSAGE_MAX = 2000;

const NEXT_STEP: Record<string, string> = {
  network: 'check the URL and that the agent is running.',
  timeout: 'the agent did not answer in time; raise --timeout or try again later.',
  aborted: 'the call was interrupted.',
  http_status: 'the agent answered with an HTTP error; check the URL path, --auth and --header.',
  response_too_large: 'the answer was larger than the byte cap; narrow the request.',
  protocol: 'the answer was not valid MCP/A2A; if the URL is of the other protocol, say so with --protocol.',
  wrapper_detected: 'the agent wrapped its answer in a non-AdCP envelope; report it to the seller.',
  unsupported_version: 'the agent speaks a protocol version this client does not; try the other --protocol.',
  not_found: 'no such task or tool at this agent; check the id (or run `adcp discover <url>`).',
  refused:
    'the agent refused the request; check the tool name, task id and arguments (`adcp discover <url>` lists its tools).',
  unsafe_url:
    'the URL is not allowed (private or non-http address, or an origin your credentials may not go to: --credential-origin allows one).',
  store: 'the local state store failed; check --store-url or the database file.',
  profile_violation:
    'the A2A agent breaks the AdCP A2A profile (its agent card or its answer, rule named above); report it to the seller, or call it without the profile: --a2a-wire plain (A2A 1.0) or --a2a-wire 0.3.',
};

/**
 * Turns anything a command threw into one message on stderr and an exit code: usage errors
 * exit 2, "could not reach or read the agent" exits 3 with the next step to try, anything else 1.
 */
export function reportError(io: CliIo, command: string, error: unknown, options: { json?: boolean } = {}): number {
  // --json: stdout holds one JSON document in every case, an error too (stderr keeps the prose).
  if (options.json === true) io.stdout.write(`${safeJson({ error: errorJson(error) }, 2)}\n`);
  if (error instanceof UsageError) {
    return usageError(io, command, error);
  }
  if (isAdcpWireError(error)) {
    const hint =
      error.signatureError !== undefined
        ? signatureHint(error.signatureError)
        : error.tokenError !== undefined
          ? 'check the token: --auth TOKEN (or ADCP_AUTH_TOKEN).'
          : (NEXT_STEP[error.code] ?? '');
    // The whole message: the library's own words end with the way through (seller text in it is capped where it is quoted).
    io.stderr.write(
      `adcp ${command}: ${printable(error.message, MESSAGE_MAX)} [${error.code}]\n${hint ? `  ${hint}\n` : ''}`,
    );
    // The agent answered (no such task, refused, the token refused): exit 1 as for any other refusal.
    const answered = error.code === 'not_found' || error.code === 'refused' || error.tokenError !== undefined;
    return answered ? EXIT.failed : EXIT.unreachable;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`adcp ${command}: ${printable(message)}\n`);
  return EXIT.failed;
}

/** The next step for a request whose signature the agent refused (`request_signature_*`). */
function signatureHint(code: string): string {
  if (code === 'request_signature_required') return 'the agent requires a signed request here: pass --sign-key FILE.';
  return `the agent refused the request signature (${code}); check --sign-key, that the agent trusts its public key, and the clock.`;
}

/** The `error` member of a `--json` document: a wire error's code and fields, `usage`, or `failed`. */
function errorJson(error: unknown): Record<string, unknown> {
  const message = printable(error instanceof Error ? error.message : String(error), MESSAGE_MAX);
  if (error instanceof UsageError) return { code: 'usage', message };
  if (!isAdcpWireError(error)) return { code: 'failed', message };
  const out: Record<string, unknown> = { code: error.code, message };
  if (error.status !== undefined) out['status'] = error.status;
  if (error.rule !== undefined) out['rule'] = error.rule;
  if (error.signatureError !== undefined) out['signature_error'] = error.signatureError;
  if (error.tokenError !== undefined) out['token_error'] = error.tokenError;
  if (error.retryable) out['retryable'] = true;
  return out;
}
