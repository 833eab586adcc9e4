import { spawn } from 'node:child_process';
import { UsageError, parseCommand, parsePort, printable } from './args.js';
import { CONNECTION_OPTIONS, readConnection } from './connection-flags.js';
import { EXIT, type CliIo, type Command } from './io.js';
import { reportError } from './report-error.js';
import { safeJson } from './safe-json.js';
import { createStyle, wantsColor } from './style.js';
import { complianceSource, SOURCE_OPTIONS } from './storyboard.js';
import { exitOnSecondSignal, untilStopped } from './until-stopped.js';

export const DEFAULT_INSPECT_PORT = 3100;

const HELP = `Usage: adcp inspect [url] [options]

Starts a local web page to explore, call and debug AdCP agents, at http://127.0.0.1:PORT/:
Discover (cards, capabilities, release, MCP era, A2A profile, tools, auth), Call (a form from
the tool's official request schema, or raw JSON, validated as you type; the TaskResult, the
AdCP body and every HTTP request and answer of the call, secrets masked), Follow (submitted
tasks followed live, cancel, input-required continuation, and a webhook receiver whose
deliveries show beside their task), Check (the conformance checks that apply to a live agent)
and History (every call kept in a SQLite file, exportable). The page and its receiver answer
on loopback only; nothing leaves the machine except calls to the agents you name, and
credentials stay in this process (the page never sees them).

Options:
  --port N                 port of the page (default ${DEFAULT_INSPECT_PORT}; 0 picks a free one)
  --open                   open the page in the default browser
  --history FILE           where calls are kept (default $XDG_STATE_HOME/adcp-wire/inspect.db,
                           else ~/.local/state/adcp-wire/inspect.db); --no-history keeps none
  --no-history             keep calls in memory only
  --protocol mcp|a2a|auto  which wire to speak to url (default auto)
  --mcp-era auto|modern|legacy  MCP only: the era to speak (default auto)
  --a2a-wire auto|1.0|0.3|plain  A2A only: the wire to speak (default auto; plain: 1.0
                           without the AdCP A2A profile)
  --auth TOKEN             bearer token for url (or set ADCP_AUTH_TOKEN)
  --header K:V             extra request header for url, repeatable (its value is masked)
  --credential-origin URL  another origin --auth and --header may be sent to, repeatable
  --timeout SECONDS        deadline of one call (default 60)
  --sign-key FILE          sign every request to url (RFC 9421) with this private JWK
  --compliance-dir DIR     the compliance folder of a release, for the Check tab's storyboards
                           (or set ADCP_COMPLIANCE_DIR)
  --release VERSION        else: the official release tarball of VERSION, fetched and checked on
                           the first storyboard run (--from FILE|URL: that tarball instead);
                           without any of these the Check tab runs the conformance checks only
  --webhook-jwks URL       the agent's published JWKS (its brand.json jwks_uri): webhooks are
                           then verified as RFC 9421 signatures against it; without it they
                           use the legacy HMAC-SHA256 with a secret made for this run
  --json                   print {"url": ...} as one JSON line once the page is up
  -h, --help               show this help

Exit codes:
  0  stopped with Ctrl-C
  2  usage error (a bad flag, the port in use)

Examples:
  adcp inspect http://127.0.0.1:3000/mcp
  adcp inspect --port 0 --open
`;

const SPEC = {
  name: 'inspect',
  help: HELP,
  positionals: ['url'],
  min: 0,
  options: {
    ...CONNECTION_OPTIONS,
    port: { type: 'string' },
    open: { type: 'boolean' },
    history: { type: 'string' },
    'no-history': { type: 'boolean' },
    'webhook-jwks': { type: 'string' },
    ...SOURCE_OPTIONS,
  },
} as const;

/** `adcp inspect`: the local web page over the library's client, schemas, receiver and checks. */
export const inspectCommand: Command = async (argv: string[], io: CliIo) => {
  const parsed = parseCommand(argv, SPEC, io);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const style = createStyle(wantsColor(io));
  try {
    const port = parsePort(values.port, DEFAULT_INSPECT_PORT);
    if (values.history !== undefined && values['no-history'] === true)
      throw new UsageError('--history and --no-history do not go together.');
    const url = positionals[0];
    if (values['webhook-jwks'] !== undefined && url === undefined)
      throw new UsageError('--webhook-jwks belongs to the agent: give its url too.');
    const connection = url === undefined ? undefined : readConnection(url, values, io, 60_000);
    const compliance = complianceSource(values, io);
    const { startInspector, defaultHistoryPath } = await import('../inspect/index.js');
    const historyPath = values['no-history'] === true ? ':memory:' : (values.history ?? defaultHistoryPath(io.env));
    let running;
    try {
      running = await startInspector({
        port,
        historyPath,
        timeoutMs: connection?.timeoutMs ?? parseTimeout(values.timeout),
        ...(compliance !== undefined ? { compliance } : {}),
        ...(connection !== undefined
          ? {
              agents: [
                {
                  url: connection.url,
                  protocol: connection.protocol,
                  headers: connection.headers,
                  ...(connection.mcpEra !== undefined ? { mcpEra: connection.mcpEra } : {}),
                  ...(connection.a2aWire !== undefined ? { a2aWire: connection.a2aWire } : {}),
                  ...(connection.auth !== undefined ? { auth: connection.auth } : {}),
                  ...(connection.credentialOrigins !== undefined
                    ? { credentialOrigins: connection.credentialOrigins }
                    : {}),
                  ...(connection.signing !== undefined ? { signing: connection.signing } : {}),
                  ...(values['webhook-jwks'] !== undefined ? { webhookJwks: values['webhook-jwks'] } : {}),
                },
              ],
            }
          : {}),
      });
    } catch (error) {
      if (error instanceof TypeError) throw new UsageError(error.message);
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
        throw new UsageError(`port ${port} is in use; pick another with --port (0 picks a free one).`);
      if ((error as { code?: unknown }).code === 'missing_peer_dependency')
        throw new UsageError(`${(error as Error).message} (or run with --no-history).`);
      throw error;
    }
    const stopped = untilStopped(io);
    if (values.json === true) io.stdout.write(`${safeJson({ url: running.url, history: historyPath })}\n`);
    else
      io.stdout.write(
        [
          `${style.bold('adcp inspect')} on ${running.url}`,
          ...(connection !== undefined ? [`  agent    ${printable(connection.url)}`] : []),
          `  history  ${historyPath === ':memory:' ? 'in memory (--no-history)' : printable(historyPath)}`,
          style.dim('Open the page in a browser. Ctrl-C to stop.'),
          '',
        ].join('\n'),
      );
    if (values.open === true) openBrowser(running.url, io);
    await stopped;
    const hurry = exitOnSecondSignal(io, 10_000);
    try {
      await running.close();
    } finally {
      hurry.release();
    }
    return EXIT.ok;
  } catch (error) {
    return reportError(io, 'inspect', error);
  }
};

function parseTimeout(value: string | undefined): number {
  if (value === undefined) return 60_000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--timeout takes seconds, not '${printable(value)}'.`);
  return seconds * 1000;
}

/** The platform's opener, detached; failing to open is said, never fatal. */
function openBrowser(url: string, io: CliIo): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.once('error', () => io.stderr.write(`adcp inspect: could not open a browser; open ${url} yourself.\n`));
    child.unref();
  } catch {
    io.stderr.write(`adcp inspect: could not open a browser; open ${url} yourself.\n`);
  }
}
