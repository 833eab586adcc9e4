import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError, parseCommand, parsePort, printable, usageError } from './args.js';
import { readLivePrincipals, readPassthroughPrincipals, readServeTokens } from './serve-tokens.js';
import type { RequestSigningServerOptions } from '../server/auth/request-signing.js';
import { EXIT, type CliIo, type Command } from './io.js';
import { reportError } from './report-error.js';
import { safeJson } from './safe-json.js';
import { activityToJson, formatActivity } from './format-activity.js';
import type { ActivityListener } from '../telemetry/activity.js';
import { createStyle, wantsColor } from './style.js';
import { exitOnSecondSignal, untilStopped } from './until-stopped.js';
import type { ReferenceSeller } from '../seller/start-reference-seller.js';
import type { ShutdownReport } from '../server/tasks/adcp-tasks.js';

const HELP = `Usage: adcp serve [options]

Runs the reference seller: a small, deterministic AdCP sales agent served over MCP and A2A
on one HTTP server, until Ctrl-C (SIGINT) or SIGTERM.

Options:
  --port N          port to listen on (default 3000; 0 picks a free one)
  --host HOST       address to bind (default 127.0.0.1, loopback only)
  --public-url URL  origin the agent and server cards advertise (https://seller.example);
                    default the listen address (never the Host header a caller sends). An
                    https origin also gets a brand.json at /.well-known/brand.json naming the
                    webhook signing keys, declared as identity.brand_json_url
  --db PATH         SQLite file for tasks, media buys and creatives (needs better-sqlite3;
                    default: in memory, no driver needed)
  --store-url URL   keep all state in a shared store instead: postgres://... (or set
                    ADCP_STORE_URL). Tasks, idempotency keys, the request-signing replay cache,
                    media buys and creatives then live in PostgreSQL: run several instances with
                    one URL behind any load balancer, no sticky sessions (docs/server.md)
  --store-connections N
                    with --store-url postgres://: the most database connections this instance
                    holds (default 10, up to 100); size a fleet's total to the database
                    (docs/fleet.md, "Connections")
  --auth-token T[=PRINCIPAL]
                    require this bearer token (API key) on every operation but discovery
                    (get_adcp_capabilities, list_creative_formats, get_products, the cards),
                    repeatable; T alone is the principal token:<8 hex of its SHA-256>. Tokens are
                    at least 16 characters and contain no '='. Or set ADCP_SERVE_TOKENS=T1,T2=bob
                    (kept out of shell history and ps). Without tokens the seller is open: every
                    caller is anonymous@<its address> (the demo's sandbox)
  --sandbox         grading sandbox: verify RFC 9421 request signatures as the compliance
                    runner contract asks (its public test keys from keys.json, test-revoked-2026
                    revoked, 100 entries per keyid, create_media_buy and tasks/cancel required).
                    Without --auth-token it mints a bearer token (printed; principal
                    sandbox-runner): calls with a token or a valid signature are served, so a
                    runner's unsigned storyboard calls carry the token and only calls with no
                    credential at all need a signature. Those keys are public: never use
                    --sandbox for real traffic
  --test-controller serve comply_test_controller (seed fixtures, force media buy and creative
                    statuses, simulate delivery and spend) for compliance storyboards. A sandbox
                    or staging deployment only: any caller can change any of its own state
  --live-principal PRINCIPAL
                    with --test-controller: this principal's account is live (production), so
                    comply_test_controller refuses it with FORBIDDEN before any scenario runs
                    (the comply-controller-mode-gate storyboard). Repeatable; each must be a
                    principal of --auth-token or ADCP_SERVE_TOKENS
  --passthrough-principal PRINCIPAL
                    this buyer agent is onboarded passthrough-only (no payments relationship):
                    sync_accounts with billing agent answers BILLING_NOT_PERMITTED_FOR_AGENT,
                    suggesting operator (the billing_gate_dispatch storyboard). Repeatable; each
                    must be a principal of --auth-token or ADCP_SERVE_TOKENS (with --sandbox and
                    no tokens, the minted token's sandbox-runner)
  --approval auto|review|manual
                    how new media buys are approved. auto (the default with --sandbox):
                    confirmed at once, except a buy of a guaranteed product whose buyer
                    registered a webhook, which waits for its IO (submitted, then completed
                    after --review-time), as the compliance storyboards expect. review (the
                    default otherwise): every buy of a catalog product is submitted, reports
                    working, and completes after --review-time. manual: every buy stays
                    submitted until approved or rejected with comply_test_controller
                    force_media_buy_status on the media_buy_id its message names (needs
                    --test-controller)
  --review-time S   slow confirmation: a buy in review completes after S seconds (0 to 3600,
                    decimals allowed; default 2, working at half of it)
  --rate-limit N    at most N tool calls per principal in any 60 seconds (a rolling window);
                    the next answers RATE_LIMITED with retry_after, the seconds until one
                    leaves the window (default: no limit)
  --signing-vectors DIR
                    the request-signing vectors folder holding keys.json (with --sandbox;
                    default ../shared/request-signing-vectors)
  --signing-profile 3.1|3.2
                    with --sandbox: the request-signing wire profile verified (default 3.1, the
                    root vectors' Base64URL values, content-digest either; 3.2: RFC 8941
                    sf-binary, content-digest required, as profile-3.2/ and the A2A erratum
                    vectors are signed)
  --shutdown-timeout S
                    on SIGTERM or Ctrl-C, drain for up to S seconds (default 10 on SIGTERM, 2 on
                    Ctrl-C, so a terminal gets its prompt back at once): /readyz turns
                    503 at once, no new connection is accepted, requests, tasks and webhooks in
                    progress may finish; then the rest is stopped (with --store-url postgres://,
                    unfinished tasks are handed over to the other instances) and the stores
                    closed. The process exits within S + 10 seconds; a second signal exits at once
  --verbose         print the activity on stderr, one line each: every tool call and answer
                    (status, error code, ms, task id) and webhook sent (with --json: one JSON
                    object per line); never bodies or tokens
  --json            print the endpoints as one JSON object
  -h, --help        show this help

Probes for a load balancer (no credentials needed): GET /healthz (200 while the process
serves), GET /readyz (200 when ready for traffic; 503 while starting, while the store cannot
be reached, and while shutting down).

Exit codes: 0 stopped cleanly, 1 the seller failed, 2 usage error.

Then, from another terminal:
  adcp discover http://127.0.0.1:3000/mcp
  adcp call http://127.0.0.1:3000/mcp get_products '{"buying_mode":"brief","brief":"coffee"}'
`;

const SPEC = {
  name: 'serve',
  help: HELP,
  positionals: [],
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'public-url': { type: 'string' },
    db: { type: 'string' },
    'store-url': { type: 'string' },
    'store-connections': { type: 'string' },
    sandbox: { type: 'boolean' },
    'auth-token': { type: 'string', multiple: true },
    'test-controller': { type: 'boolean' },
    'live-principal': { type: 'string', multiple: true },
    'passthrough-principal': { type: 'string', multiple: true },
    approval: { type: 'string' },
    'review-time': { type: 'string' },
    'rate-limit': { type: 'string' },
    'signing-vectors': { type: 'string' },
    'signing-profile': { type: 'string' },
    'shutdown-timeout': { type: 'string' },
    verbose: { type: 'boolean' },
    json: { type: 'boolean' },
  },
} as const;

/** `adcp serve`: the reference seller in the foreground. */
export const serveCommand: Command = async (argv: string[], io: CliIo) => {
  const parsed = parseCommand(argv, SPEC, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const style = createStyle(wantsColor(io));
  let seller: ReferenceSeller | undefined;
  try {
    const port = parsePort(values.port, 3000);
    const chosenGraceMs = parseShutdownTimeout(values['shutdown-timeout']);
    const host = values.host ?? '127.0.0.1';
    const storeUrl = values['store-url'] ?? io.env['ADCP_STORE_URL'];
    const storeConnections = parseStoreConnections(values['store-connections'], storeUrl);
    if (values['signing-vectors'] !== undefined && values.sandbox !== true) {
      return usageError(io, 'serve', new Error('--signing-vectors goes with --sandbox.'));
    }
    const signingProfile = values['signing-profile'];
    if (signingProfile !== undefined && values.sandbox !== true) {
      return usageError(io, 'serve', new Error('--signing-profile goes with --sandbox.'));
    }
    if (signingProfile !== undefined && signingProfile !== '3.1' && signingProfile !== '3.2') {
      return usageError(io, 'serve', new Error(`--signing-profile is 3.1 or 3.2, not ${printable(signingProfile)}.`));
    }
    const approval = values.approval ?? (values.sandbox === true ? 'auto' : 'review');
    if (approval !== 'auto' && approval !== 'review' && approval !== 'manual') {
      return usageError(io, 'serve', new Error(`--approval is auto, review or manual, not ${printable(approval)}.`));
    }
    if (approval === 'manual' && values['test-controller'] !== true) {
      return usageError(
        io,
        'serve',
        new Error('--approval manual goes with --test-controller (buys are approved there).'),
      );
    }
    const reviewMs = parseReviewTime(values['review-time']);
    const callsPerMinute = parseRateLimit(values['rate-limit']);
    const tokens = readServeTokens(values['auth-token'] ?? [], io.env['ADCP_SERVE_TOKENS']);
    // A sandbox always has a credential a runner can present (docs/decisions/0201-sandbox-signing.md):
    // without one, its unsigned storyboard calls of create_media_buy would meet required_for.
    const sandboxToken = values.sandbox === true && tokens.size === 0 ? mintSandboxToken() : undefined;
    if (sandboxToken !== undefined) tokens.set(sandboxToken, SANDBOX_RUNNER_PRINCIPAL);
    const live = readLivePrincipals(values['live-principal'] ?? [], tokens, values['test-controller'] === true);
    const passthrough = readPassthroughPrincipals(values['passthrough-principal'] ?? [], tokens);
    const requestSigning =
      values.sandbox === true
        ? await readSandboxSigning(io, values['signing-vectors'], signingProfile === '3.2' ? '3.2' : '3.1')
        : undefined;
    if (typeof requestSigning === 'number') return requestSigning;
    const { startReferenceSeller } = await import('../seller/index.js');
    const started = await startReferenceSeller({
      port,
      host,
      ...(values['public-url'] !== undefined ? { publicUrl: values['public-url'] } : {}),
      ...(values.db !== undefined ? { dbPath: values.db } : {}),
      ...(storeUrl !== undefined ? { storeUrl } : {}),
      ...(storeConnections !== undefined ? { storeConnections } : {}),
      ...(requestSigning !== undefined ? { requestSigning } : {}),
      ...(tokens.size > 0 ? { auth: { tokens } } : {}),
      approval,
      ...(passthrough.length === 0 ? {} : { passthroughPrincipals: passthrough }),
      ...(reviewMs === undefined ? {} : { timings: { workingAfterMs: reviewMs / 2, completeAfterMs: reviewMs } }),
      ...(callsPerMinute === undefined ? {} : { callsPerMinute }),
      ...(values.verbose === true ? { onActivity: activityPrinter(io, values.json === true) } : {}),
      ...(values['test-controller'] === true
        ? { testController: live.size === 0 ? true : { isLive: (principal: string) => live.has(principal) } }
        : {}),
    });
    seller = started;
    // Listen for Ctrl-C/SIGTERM before saying how to stop: a signal sent as soon as the banner
    // shows must find the handler, not Node's default (which would exit without draining).
    const stopped = untilStopped(io);
    const jwksUrl = `${started.url}/.well-known/jwks.json`;
    if (values.json === true) {
      io.stdout.write(
        `${safeJson({ url: started.url, mcp: started.mcpUrl, a2a: started.a2aUrl, webhook_jwks: jwksUrl, ...(started.brandJsonUrl === undefined ? {} : { brand_json: started.brandJsonUrl }), sandbox: values.sandbox === true, ...(sandboxToken === undefined ? {} : { sandbox_token: sandboxToken }), principals: [...new Set(tokens.values())], test_controller: values['test-controller'] === true, live_principals: [...live], approval })}\n`,
      );
    } else {
      io.stdout.write(
        [
          `${style.bold('reference seller')} listening on ${started.url}`,
          `  MCP  ${started.mcpUrl}`,
          `  A2A  ${started.a2aUrl}`,
          `  webhook signing keys  ${jwksUrl}`,
          started.brandJsonUrl === undefined
            ? '  brand.json  none (it needs an https --public-url: identity.brand_json_url is https only)'
            : `  brand.json  ${started.brandJsonUrl} (identity.brand_json_url; names the signing keys)`,
          ...(host === '0.0.0.0' || host === '::'
            ? [
                `  bound to every interface (${host}): other machines use this machine's address; --public-url sets what the cards advertise`,
              ]
            : []),
          ...(values.sandbox === true
            ? [style.bold('  sandbox: request signatures verified with the public compliance test keys')]
            : []),
          ...(sandboxToken === undefined ? [] : [`  sandbox bearer token (give it to the runner): ${sandboxToken}`]),
          tokens.size === 0
            ? '  auth  open: no credentials asked (every caller is anonymous@<its address>; --auth-token requires one)'
            : `  auth  bearer tokens for ${[...new Set(tokens.values())].map((name) => printable(name)).join(', ')}; discovery stays open`,
          ...(values['test-controller'] === true
            ? [style.bold('  comply_test_controller served: a sandbox deployment, never for real traffic')]
            : []),
          `  media buys  approval ${approval}${reviewMs === undefined ? '' : `, review ${reviewMs / 1000} s`}${callsPerMinute === undefined ? '' : `; rate limit ${callsPerMinute} calls a minute per principal`}`,
          ...(live.size > 0
            ? [`  live accounts (controller refused): ${[...live].map((name) => printable(name)).join(', ')}`]
            : []),
          storeUrl !== undefined && /^postgres(ql)?:\/\//i.test(storeUrl)
            ? `  state  ${describeStore(storeUrl)} (tasks, media buys, idempotency, replay cache; shared by every instance on it)`
            : `  state  tasks: ${storeUrl !== undefined ? describeStore(storeUrl) : where(values.db)}; media buys: ${where(values.db)}`,
          style.dim('Ctrl-C to stop.'),
          '',
        ].join('\n'),
      );
    }
    const reason = await stopped;
    // Ctrl-C is a person at a terminal (issue 18: stop within 2 s); SIGTERM is an orchestrator.
    const graceMs = chosenGraceMs ?? (reason === 'SIGINT' ? INTERACTIVE_GRACE_MS : DEFAULT_GRACE_MS);
    if (values.json !== true) {
      io.stdout.write(
        `${reason}: closing the seller (draining for up to ${graceMs / 1000} s; Ctrl-C again to exit at once).\n`,
      );
    }
    // Closing the stores after the drain is bounded too (statement and connect timeouts, 5 s each).
    const hurry = exitOnSecondSignal(io, graceMs + 10_000);
    try {
      const report = await seller.close({ graceMs });
      seller = undefined;
      if (values.json !== true) io.stdout.write(describeShutdown(report));
    } finally {
      hurry.release();
    }
    return EXIT.ok;
  } catch (error) {
    const code = reportError(io, 'serve', error);
    return code === EXIT.usage ? code : EXIT.failed; // a long-running command either starts or fails
  } finally {
    await seller?.close().catch(() => undefined);
  }
};

/** `--verbose`: each activity event as a line on stderr (one JSON object with `--json`); stdout keeps the banner. */
function activityPrinter(io: CliIo, json: boolean): ActivityListener {
  const style = createStyle(wantsColor(io, 'stderr'));
  return (event) => io.stderr.write(json ? `${safeJson(activityToJson(event))}\n` : formatActivity(event, style));
}

/** The drain without `--shutdown-timeout`: on SIGTERM (or a test's stop), and on Ctrl-C. */
const DEFAULT_GRACE_MS = 10_000;
const INTERACTIVE_GRACE_MS = 2_000;

/** `--shutdown-timeout S`: whole seconds from 0 to 3600, in ms; undefined when not given. */
function parseShutdownTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!/^\d+$/.test(value) || seconds > 3600) {
    throw new UsageError(`--shutdown-timeout takes whole seconds from 0 to 3600, not '${printable(value)}'.`);
  }
  return seconds * 1000;
}

/** `--review-time S`: seconds from 0 to 3600 (decimals allowed), in ms; undefined when not given. */
function parseReviewTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || seconds > 3600) {
    throw new UsageError(`--review-time takes seconds from 0 to 3600, not '${printable(value)}'.`);
  }
  return Math.round(seconds * 1000);
}

/** `--rate-limit N`: calls per principal per 60 s, 1 to 1 000 000; undefined when not given. */
function parseRateLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > 1_000_000) {
    throw new UsageError(`--rate-limit takes a whole number of calls from 1 to 1000000, not '${printable(value)}'.`);
  }
  return count;
}

/** `--store-connections N`: 1 to 100, PostgreSQL only; undefined when not given (the pool's default). */
function parseStoreConnections(value: string | undefined, storeUrl: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > 100) {
    throw new UsageError(`--store-connections takes a whole number from 1 to 100, not '${printable(value)}'.`);
  }
  if (storeUrl === undefined || !/^postgres(ql)?:\/\//i.test(storeUrl)) {
    throw new UsageError('--store-connections goes with --store-url postgres://... (or ADCP_STORE_URL).');
  }
  return count;
}

/** What closing cut short, so nobody wonders where a task or a webhook went. */
export function describeShutdown(report: ShutdownReport): string {
  const cut: string[] = [];
  const handed = report.handedOverTasks ?? 0;
  if (handed > 0)
    cut.push(`${handed} unfinished task${handed === 1 ? '' : 's'} handed over to the other instances (lease released)`);
  if (report.abortedTasks > 0)
    cut.push(`${report.abortedTasks} running task${report.abortedTasks === 1 ? '' : 's'} stopped (now failed)`);
  if (report.undeliveredWebhooks > 0)
    cut.push(
      `${report.undeliveredWebhooks} webhook${report.undeliveredWebhooks === 1 ? '' : 's'} not delivered (buyers can poll get_task_status)`,
    );
  return cut.length === 0 ? 'stopped; nothing was left running.\n' : `stopped; ${cut.join('; ')}.\n`;
}

function where(db: string | undefined): string {
  return db === undefined ? 'in memory' : `SQLite ${printable(db)}`;
}

/** A store URL without its password. */
function describeStore(url: string): string {
  if (!/^postgres(ql)?:\/\//i.test(url)) return `SQLite ${printable(url)}`;
  try {
    const parsed = new URL(url);
    return `PostgreSQL ${printable(`${parsed.host}${parsed.pathname}`)}`;
  } catch {
    return 'PostgreSQL';
  }
}

/** The principal of the bearer token `--sandbox` mints when no token is given. */
const SANDBOX_RUNNER_PRINCIPAL = 'sandbox-runner';

/** A fresh bearer token for a sandbox started without one (printed in the banner, never stored). */
function mintSandboxToken(): string {
  return `sandbox-${randomBytes(16).toString('hex')}`;
}

/** The sandbox verifier from `DIR/keys.json` (read now, never copied), or a usage error. */
async function readSandboxSigning(
  io: CliIo,
  dir: string | undefined,
  profile: '3.1' | '3.2',
): Promise<RequestSigningServerOptions | number> {
  const folder = path.resolve(io.cwd, dir ?? '../shared/request-signing-vectors');
  let text: string;
  try {
    text = await readFile(path.join(folder, 'keys.json'), 'utf8');
  } catch {
    return usageError(
      io,
      'serve',
      new Error(
        `--sandbox needs the request-signing vectors: no keys.json in ${printable(folder)} (pass --signing-vectors DIR).`,
      ),
    );
  }
  const { sandboxRequestSigning } = await import('../seller/sandbox-request-signing.js');
  try {
    return sandboxRequestSigning(JSON.parse(text), profile);
  } catch (error) {
    return usageError(io, 'serve', error instanceof Error ? error : new Error(String(error)));
  }
}
