import { existsSync } from 'node:fs';
import { UsageError, parseCommand, printable, usageError } from './args.js';
import { startDemoEnv, type DemoEnv } from './demo-env.js';
import { runSteps, type StepOutcome } from './demo-runner.js';
import { demoSteps, type DemoContext } from './demo-steps.js';
import { renderSummary, summaryToJson } from './demo-summary.js';
import { formatEvent } from './format-event.js';
import { EXIT, type CliIo, type Command } from './io.js';
import { reportError } from './report-error.js';
import { safeJson } from './safe-json.js';
import { createStyle, paintStatus } from './style.js';
import { wantsColor } from './style.js';
import { interruptSignal } from './until-stopped.js';
import type { AdcpClient } from '../client/adcp-client.js';

const HELP = `Usage: adcp demo [--json] [--mcp-era modern|legacy]

The project's main job in one command. Starts, on loopback with SQLite state in a temporary
folder (in memory when the optional better-sqlite3 is not installed), the reference seller (MCP and A2A) and a verifying webhook receiver, then plays a buyer:
  1. discover the seller on both wires (and the MCP era it speaks)
  2. get_products over MCP
  3. get_products over A2A
  4. create_media_buy with a signed webhook: submitted -> webhook -> completed, confirmed by polling
  5. one MCP Task-augmented call (on the 2025 era, where a caller can ask for one)
  6. one rate-limited call, retried by the client to success
Prints a transcript and a summary table, stops everything it started and removes the folder.

Options:
  --json                      print only the summary, as JSON
  --mcp-era modern|legacy     the MCP era the buyer speaks (default modern: MCP 2026-07-28,
                              learned from server/discover; legacy pins the 2025 era)
  -h, --help                  show this help

Exit codes:
  0  every step did what it should
  1  a step did not (the demo is also a check)
  2  usage error
  3  the seller or the webhook receiver could not start
  130  interrupted (Ctrl-C), after stopping everything and removing the folder
`;

const SPEC = {
  name: 'demo',
  help: HELP,
  positionals: [],
  options: { json: { type: 'boolean' }, 'mcp-era': { type: 'string' } },
} as const;
const STEP_TIMEOUT_MS = 15_000;

/** `adcp demo`: seller, webhook receiver and buyer end to end; exit 0 only if every step passed. */
export const demoCommand: Command = async (argv: string[], io: CliIo) => {
  const parsed = parseCommand(argv, SPEC, io);
  if (typeof parsed === 'number') return parsed;
  const json = parsed.values.json === true;
  const mcpEra = parsed.values['mcp-era'] ?? 'modern';
  if (mcpEra !== 'modern' && mcpEra !== 'legacy') {
    return usageError(io, 'demo', new UsageError(`--mcp-era takes modern or legacy, not '${printable(mcpEra)}'.`));
  }
  const style = createStyle(wantsColor(io));
  const write = (line: string) => {
    if (!json) io.stdout.write(`${line}\n`);
  };
  const say = (line: string) => write(`      ${line}`);
  const started = Date.now();
  let env: DemoEnv | undefined;
  const clients: AdcpClient[] = [];
  let outcomes: StepOutcome[] = [];
  const interrupt = interruptSignal(io);
  try {
    write(style.bold('adcp demo: a seller, a webhook receiver and a buyer, all on loopback'));
    env = await startDemoEnv((event) => say(`${style.cyan('webhook')} ${formatEvent(event, style).trimEnd()}`));
    write(
      env.state === 'sqlite'
        ? `  state     ${printable(env.dir)} ${style.dim('(SQLite, removed at the end)')}`
        : `  state     in memory ${style.dim('(better-sqlite3 is not installed; npm install better-sqlite3 keeps it in SQLite)')}`,
    );
    write(`  seller    MCP ${env.seller.mcpUrl}   A2A ${env.seller.a2aUrl}`);
    write(
      `  webhooks  ${env.receiver.url} ${style.dim('(RFC 9421 signatures checked against the seller JWKS, de-duplicated)')}`,
    );
    write('');
    const ctx = await buyerContext(env, style, clients, mcpEra);
    const steps = demoSteps(ctx);
    outcomes = await runSteps(
      steps,
      {
        start: (i, step) => write(`${style.bold(`[${i + 1}/${steps.length}]`)} ${step.title}`),
        say,
        end: (o) =>
          say(
            `${paintStatus(style, o.ok ? 'ok' : 'FAIL')}${o.ok ? '' : `: expected ${o.expect}, got ${o.got}`} ${style.dim(`(${(o.ms / 1000).toFixed(2)} s)`)}`,
          ),
      },
      { stepTimeoutMs: STEP_TIMEOUT_MS, signal: interrupt.signal },
    );
  } catch (error) {
    await stop(clients, env);
    interrupt.release();
    const code = reportError(io, 'demo', error);
    return code === EXIT.failed ? EXIT.unreachable : code;
  }
  const dir = env.dir;
  await stop(clients, env);
  interrupt.release();
  const removed = !existsSync(dir);
  if (interrupt.signal.aborted) {
    io.stderr.write(
      `adcp demo: interrupted; stopped the seller and the webhook receiver${removed ? ` and removed ${printable(dir)}` : ''}.\n`,
    );
    return EXIT.interrupted;
  }
  const totalMs = Date.now() - started;
  if (json) {
    io.stdout.write(
      `${safeJson({ ...summaryToJson(outcomes, totalMs), state_dir: dir, state_removed: removed }, 2)}\n`,
    );
  } else {
    write('');
    write(
      `Stopped the seller and the webhook receiver; ${removed ? 'removed' : style.red('could not remove')} ${printable(dir)}.`,
    );
    write('');
    io.stdout.write(renderSummary(outcomes, totalMs, style));
  }
  return outcomes.length > 0 && outcomes.every((o) => o.ok) && removed ? EXIT.ok : EXIT.failed;
};

/** One buyer client per wire, plus an MCP one that counts its tool calls and rate-limit answers. */
async function buyerContext(
  env: DemoEnv,
  style: DemoContext['style'],
  clients: AdcpClient[],
  mcpEra: 'modern' | 'legacy',
): Promise<DemoContext> {
  const { AdcpClient } = await import('../client/adcp-client.js');
  const open = (
    url: string,
    protocol: 'mcp' | 'a2a',
    extra: { fetch?: typeof fetch; mcpEra?: 'modern' | 'legacy' } = {},
  ) => {
    const client = new AdcpClient({ url, protocol, timeoutMs: 15_000, ...extra });
    clients.push(client);
    return client;
  };
  let toolCalls = 0;
  let rateLimited = 0;
  const counting: typeof fetch = async (input, init) => {
    const isCall = typeof init?.body === 'string' && init.body.includes('"method":"tools/call"');
    if (isCall) toolCalls++;
    const response = await fetch(input, init);
    if (isCall) {
      void response
        .clone()
        .text()
        .then(
          (text) => {
            if (text.includes('RATE_LIMITED')) rateLimited++;
          },
          () => undefined,
        );
    }
    return response;
  };
  return {
    env,
    // Modern: the era is learned with server/discover, as any buyer would; legacy: pinned.
    mcp: open(env.seller.mcpUrl, 'mcp', mcpEra === 'legacy' ? { mcpEra } : {}),
    mcpEra,
    mcpLegacy: open(env.seller.mcpUrl, 'mcp', { mcpEra: 'legacy' }),
    a2a: open(env.seller.a2aUrl, 'a2a'),
    counted: {
      client: open(env.seller.mcpUrl, 'mcp', { fetch: counting, ...(mcpEra === 'legacy' ? { mcpEra } : {}) }),
      toolCalls: () => toolCalls,
      rateLimitedAnswers: () => rateLimited,
    },
    style,
    found: { productIds: [] },
  };
}

async function stop(clients: AdcpClient[], env: DemoEnv | undefined): Promise<void> {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await env?.close();
}
