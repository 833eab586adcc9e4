import { UsageError, parseCommand, parsePort, printable, usageError } from './args.js';
import { EXIT, type CliIo, type Command } from './io.js';
import { reportError } from './report-error.js';
import { createStyle, wantsColor } from './style.js';
import { untilStopped } from './until-stopped.js';
import { startWebhookListener, type ListenerEvent } from './webhook-listener.js';
import { formatEvent, eventToJson } from './format-event.js';
import { safeJson } from './safe-json.js';
import { activityToJson, formatActivity } from './format-activity.js';
import type { ActivityEvent } from '../telemetry/activity.js';

const HELP = `Usage: adcp webhooks listen --port N (--secret SECRET | --jwks FILE|URL) [options]

Receives AdCP webhooks on loopback, verifies each one (legacy HMAC-SHA256 with --secret,
RFC 9421 signatures with --jwks), drops duplicates by idempotency_key, and prints each
verified event. Deliveries that fail a check are answered 4xx; they and duplicates are
reported on stderr, one line each with the reason (--verbose: every delivery).
Slow clients are cut off: headers within 10 s, the whole request within 20 s (408), and at
most 64 bodies arriving at once (more get 503 with Retry-After).
Runs until Ctrl-C (SIGINT) or SIGTERM.

Options:
  --port N          port to listen on (default 4000; 0 picks a free one)
  --host HOST       address to bind (default 127.0.0.1)
  --secret SECRET   shared secret of the legacy HMAC-SHA256 scheme (or set ADCP_WEBHOOK_SECRET)
  --jwks FILE|URL   the seller's JSON Web Key Set (RFC 9421): a file, or its jwks_uri
                    (https; http only on loopback), fetched and refreshed as keys rotate
  --store-url URL   de-duplication state: a SQLite file path, or postgres://... (or set
                    ADCP_STORE_URL; default: memory)
  --json            one JSON object per event (NDJSON) on stdout; delivery lines on stderr too
  --verbose         also report each accepted delivery on stderr (HTTP status, ms)
  -h, --help        show this help

Exit codes: 0 stopped cleanly, 1 the listener failed, 2 usage error.

Examples:
  adcp webhooks listen --port 4000 --jwks http://127.0.0.1:3000/.well-known/jwks.json
  adcp webhooks listen --port 4000 --secret "$SECRET"
  adcp call http://127.0.0.1:3000/mcp create_media_buy @buy.json \\
       --webhook http://127.0.0.1:4000/webhooks --webhook-secret "$SECRET"
`;

const SPEC = {
  name: 'webhooks listen',
  help: HELP,
  positionals: [],
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    secret: { type: 'string' },
    jwks: { type: 'string' },
    'store-url': { type: 'string' },
    json: { type: 'boolean' },
    verbose: { type: 'boolean' },
  },
} as const;

/** `adcp webhooks listen`: a verifying webhook receiver in the foreground. */
export const webhooksCommand: Command = async (argv: string[], io: CliIo) => {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    (sub === undefined ? io.stderr : io.stdout).write(HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (sub !== 'listen') {
    return usageError(
      io,
      'webhooks',
      new UsageError(`unknown subcommand '${printable(sub)}'; the one subcommand is 'listen'.`),
    );
  }
  const parsed = parseCommand(rest, SPEC, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const style = createStyle(wantsColor(io));
  const errStyle = createStyle(wantsColor(io, 'stderr'));
  let listener: { close(): Promise<void> } | undefined;
  try {
    const secret = values.secret ?? io.env['ADCP_WEBHOOK_SECRET'];
    const storeUrl = values['store-url'] ?? io.env['ADCP_STORE_URL'];
    if ((secret === undefined) === (values.jwks === undefined)) {
      throw new UsageError('give exactly one of --secret SECRET (HMAC-SHA256) or --jwks FILE|URL (RFC 9421).');
    }
    const started = await startWebhookListener({
      port: parsePort(values.port, 4000),
      host: values.host ?? '127.0.0.1',
      cwd: io.cwd,
      ...(secret !== undefined ? { secret } : {}),
      ...(values.jwks !== undefined ? { jwksPath: values.jwks } : {}),
      ...(storeUrl !== undefined ? { storeUrl } : {}),
      onEvent: (event: ListenerEvent) => {
        if (values.json === true) io.stdout.write(`${safeJson(eventToJson(event))}\n`);
        else io.stdout.write(formatEvent(event, style));
      },
      // One stderr line per refused or duplicate delivery (each, with --verbose): never its body or signature.
      onActivity: (event: ActivityEvent) => {
        if (event.type !== 'webhook' || event.direction !== 'received') return;
        if (event.outcome === 'accepted' && values.verbose !== true) return;
        io.stderr.write(
          values.json === true ? `${safeJson(activityToJson(event))}\n` : formatActivity(event, errStyle),
        );
      },
    });
    listener = started;
    const stopped = untilStopped(io); // before the line that says how to stop (see serve.ts)
    if (values.json !== true) {
      io.stdout.write(`${style.bold('listening')} for webhooks on ${started.url}  ${style.dim('(Ctrl-C to stop)')}\n`);
    } else {
      io.stderr.write(`listening on ${started.url}\n`);
    }
    await stopped;
    return EXIT.ok;
  } catch (error) {
    const code = reportError(io, 'webhooks listen', error);
    return code === EXIT.usage ? code : EXIT.failed; // a long-running command either starts or fails
  } finally {
    await listener?.close().catch(() => undefined);
  }
};
