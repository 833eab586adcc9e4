import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseCommand, parsePort, parseSeconds, printable, UsageError, usageError } from './args.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS, readConnection } from './connection-flags.js';
import { EXIT, type CliIo, type Command } from './io.js';
import { untilStopped } from './until-stopped.js';
import type { ComplianceRelease } from '../storyboard/load.js';

const DEFAULT_RELEASE = '3.1.19';

const SOURCE_HELP = [
  '  --compliance-dir DIR     the compliance folder of a release (the one holding index.json,',
  '                           universal/, protocols/, specialisms/, test-kits/); or set',
  '                           ADCP_COMPLIANCE_DIR',
  `  --release VERSION        else: the official release tarball of VERSION (default ${DEFAULT_RELEASE}), checked`,
  '                           as `adcp schemas sync` checks it (SHA-256 sidecar and pin), read in memory',
  '  --from FILE|URL          with --release: the tarball to read instead of the official URL',
].join('\n');

const HELP = `Usage: adcp storyboard list [source]
       adcp storyboard show <id> [source]
       adcp storyboard run <url> [options] [source]

Grades an AdCP agent with the official compliance storyboards of a release, locally.

  list   the storyboards of the release: universal, protocol baselines, specialisms, scenarios
  show   one storyboard: its gates, phases and steps
  run    discover the agent (get_adcp_capabilities and its tools), select the storyboards the
         spec says apply (every universal one, the baseline of each supported protocol, each
         claimed specialism, with the scenarios they require; or --id), and run each over one
         connection of its own. Every step gets a verdict: passed, failed (the agent), not
         applicable (the gate that decided it), skipped (the step that caused it) or harness
         fault (this runner or the environment), explained with the request sent, the answer,
         the JSON pointer, expected and actual, and the storyboard text it comes from.

Source:
${SOURCE_HELP}

Run options:
${CONNECTION_HELP.replace('  --timeout SECONDS        give up after this long (default 30)', '  --timeout SECONDS        deadline of one step (default 30)')}
  --id ID                  run this storyboard (id or file), repeatable; default: selected
                           from the agent's capabilities
  --budget SECONDS         stop the whole run after this long; the report says what was cut
  --webhook-host HOST      where the built-in webhook receiver listens (default 127.0.0.1)
  --webhook-port N         its port (default: any free one)
  --webhook-url URL        the receiver's base as the agent must reach it (a tunnel)
  --no-webhooks            no receiver: webhook steps are not applicable
  --seeded-state           say prerequisite state was seeded out of band (requires: seeded_state)
  --brand-json URL         the agent's brand.json, when its capabilities declare no
                           identity.brand_json_url (webhook signing keys are read from it)
  --allow-http             let runner tasks fetch http:// and private or loopback URLs the agent
                           names (an OAuth issuer, a brand.json, a jwks_uri): local tests only;
                           without it only the agent's own origin may be http or local
  --rate-limit-trip        offer the rate_limit_trip_runner contract: trip the agent's limiter
                           with up to max_attempts (50-500) sequential writes, then check the
                           RATE_LIMITED answer is not replayed from the idempotency cache
  --signing-vectors DIR    the request-signing conformance vectors (keys.json, positive/,
                           negative/, as in the spec's test-vectors/request-signing/) that
                           signed_requests grades with: each vector is re-signed for the agent
                           with the test kit's keys from keys.json, its defect kept, and sent
                           without the bearer token or --sign-key's signature; default: the
                           suite's own test-vectors/request-signing/ when it has one
  --junit FILE             also write JUnit XML
  --html FILE              also write one self-contained HTML report
  --verbose                list every step in the terminal, not only the ones that did not pass

Exit codes: 0 every selected storyboard graded and nothing the agent owns failed, 1 a storyboard
failed (the agent), 2 usage error, 3 could not reach or discover the agent, or read the
compliance suite, 4 incomplete without an agent failure: the run was cut short (--budget,
Ctrl-C) or a storyboard was not fully graded (a harness fault: read its fault).
`;

/** `adcp storyboard list|show|run`. */
export const storyboardCommand: Command = async (argv: string[], io: CliIo) => {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    (sub === undefined ? io.stderr : io.stdout).write(HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (sub === 'list') return list(rest, io);
  if (sub === 'show') return show(rest, io);
  if (sub === 'run') return run(rest, io);
  return usageError(io, 'storyboard', new Error(`unknown subcommand '${printable(sub)}' (list, show or run).`));
};

const SOURCE_OPTIONS = {
  'compliance-dir': { type: 'string' },
  release: { type: 'string' },
  from: { type: 'string' },
} as const;

async function loadSource(
  values: { 'compliance-dir'?: string; release?: string; from?: string },
  io: CliIo,
): Promise<ComplianceRelease> {
  const { ComplianceError, loadComplianceDir, loadComplianceRelease } = await import('../storyboard/load.js');
  const dir = values['compliance-dir'] ?? io.env['ADCP_COMPLIANCE_DIR'];
  if (dir !== undefined && dir !== '') {
    if (values.release !== undefined || values.from !== undefined)
      throw new UsageError('give --compliance-dir or --release/--from, not both.');
    try {
      return loadComplianceDir(path.resolve(io.cwd, dir));
    } catch (error) {
      if (error instanceof ComplianceError) throw new SourceError(error.message);
      throw error;
    }
  }
  if (values.from !== undefined && values.release === undefined)
    throw new UsageError("--from needs --release VERSION (the tarball's version).");
  const { SchemaSyncError } = await import('../schemas/sync/sync-release.js');
  const from =
    values.from === undefined || /^https?:\/\//i.test(values.from) ? values.from : path.resolve(io.cwd, values.from);
  try {
    return await loadComplianceRelease({
      version: values.release ?? DEFAULT_RELEASE,
      ...(from === undefined ? {} : { from }),
    });
  } catch (error) {
    if (error instanceof ComplianceError || error instanceof SchemaSyncError) throw new SourceError(error.message);
    throw error;
  }
}

/**
 * For `adcp inspect`: the same source flags, read on first use; undefined when none is given (no
 * flag, no ADCP_COMPLIANCE_DIR), so nothing is fetched unless asked. Flag clashes throw UsageError now.
 */
export function complianceSource(
  values: { 'compliance-dir'?: string; release?: string; from?: string },
  io: CliIo,
): (() => Promise<ComplianceRelease>) | undefined {
  const dir = values['compliance-dir'] ?? io.env['ADCP_COMPLIANCE_DIR'];
  const named = (dir !== undefined && dir !== '') || values.release !== undefined || values.from !== undefined;
  if (!named) return undefined;
  if (dir !== undefined && dir !== '' && (values.release !== undefined || values.from !== undefined))
    throw new UsageError('give --compliance-dir or --release/--from, not both.');
  if (values.from !== undefined && values.release === undefined)
    throw new UsageError("--from needs --release VERSION (the tarball's version).");
  return () => loadSource(values, io);
}

export { SOURCE_OPTIONS };

class SourceError extends Error {}

async function withSource(name: string, io: CliIo, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof UsageError) return usageError(io, `storyboard ${name}`, error);
    if (error instanceof SourceError) {
      io.stderr.write(`adcp storyboard ${name}: ${printable(error.message)}\n`);
      return EXIT.unreachable;
    }
    throw error;
  }
}

async function list(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(
    argv,
    { name: 'storyboard list', help: HELP, options: { ...SOURCE_OPTIONS, json: { type: 'boolean' } }, positionals: [] },
    io,
  );
  if (typeof parsed === 'number') return parsed;
  return withSource('list', io, async () => {
    const release = await loadSource(parsed.values, io);
    const rows = [...release.storyboards.values()].map((s) => ({
      id: s.id,
      kind: s.kind,
      folder: s.folder,
      file: s.file,
      title: s.title,
    }));
    if (parsed.values.json === true) {
      io.stdout.write(
        `${JSON.stringify({ release: release.version, source: release.source, storyboards: rows }, null, 2)}\n`,
      );
      return EXIT.ok;
    }
    io.stdout.write(`compliance ${release.version} (${printable(release.source)}): ${rows.length} storyboards\n`);
    for (const kind of ['universal', 'protocol', 'specialism', 'scenario'] as const) {
      const of = rows.filter((r) => r.kind === kind);
      io.stdout.write(`\n${kind} (${of.length})\n`);
      for (const r of of) io.stdout.write(`  ${r.id.padEnd(48)} ${printable(r.title)}\n`);
    }
    return EXIT.ok;
  });
}

async function show(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(
    argv,
    {
      name: 'storyboard show',
      help: HELP,
      options: { ...SOURCE_OPTIONS, json: { type: 'boolean' } },
      positionals: ['id'],
    },
    io,
  );
  if (typeof parsed === 'number') return parsed;
  return withSource('show', io, async () => {
    const release = await loadSource(parsed.values, io);
    const id = parsed.positionals[0] ?? '';
    const storyboard =
      release.storyboards.get(id) ??
      [...release.storyboards.values()].find((s) => s.file === id || s.file === `${id}.yaml`);
    if (storyboard === undefined)
      throw new UsageError(`no storyboard ${id} in compliance ${release.version} (adcp storyboard list shows them).`);
    if (parsed.values.json === true) {
      io.stdout.write(`${JSON.stringify({ ...storyboard }, null, 2)}\n`);
      return EXIT.ok;
    }
    const doc = storyboard.doc;
    const text = (v: unknown) => (typeof v === 'string' ? printable(v.trim().replace(/\s+/g, ' ')) : '');
    const out = [
      `${storyboard.id}: ${printable(storyboard.title)}`,
      `  file: ${storyboard.file} (${storyboard.kind})`,
      `  ${text(doc['summary'])}`,
    ];
    for (const key of [
      'required_tools',
      'requires',
      'requires_capability',
      'required_any_of_tools',
      'requires_scenarios',
    ]) {
      if (doc[key] !== undefined) out.push(`  ${key}: ${printable(JSON.stringify(doc[key]))}`);
    }
    const prerequisites = doc['prerequisites'];
    if (prerequisites !== null && typeof prerequisites === 'object')
      out.push(`  prerequisites: ${printable(JSON.stringify({ ...prerequisites, description: undefined }))}`);
    for (const phase of Array.isArray(doc['phases']) ? doc['phases'] : []) {
      if (phase === null || typeof phase !== 'object') continue;
      const p = phase as Record<string, unknown>;
      const gates = ['optional', 'skip_if', 'requires_capability', 'depends_on', 'branch_set']
        .filter((k) => p[k] !== undefined)
        .map((k) => `${k}=${JSON.stringify(p[k])}`);
      out.push(
        `\n  phase ${text(p['id'])}: ${text(p['title'])}${gates.length > 0 ? ` [${printable(gates.join(', '))}]` : ''}`,
      );
      for (const step of Array.isArray(p['steps']) ? p['steps'] : []) {
        if (step === null || typeof step !== 'object') continue;
        const s = step as Record<string, unknown>;
        const checks = Array.isArray(s['validations'])
          ? s['validations']
              .map((v) => (v !== null && typeof v === 'object' ? text((v as Record<string, unknown>)['check']) : ''))
              .join(', ')
          : '';
        out.push(
          `    ${text(s['id'])} (${text(s['task'])}${s['stateful'] === true ? ', stateful' : ''}${s['expect_error'] === true ? ', expects an error' : ''}): ${checks}`,
        );
      }
    }
    io.stdout.write(`${out.join('\n')}\n`);
    return EXIT.ok;
  });
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(
    argv,
    {
      name: 'storyboard run',
      help: HELP,
      options: {
        ...CONNECTION_OPTIONS,
        ...SOURCE_OPTIONS,
        id: { type: 'string', multiple: true },
        budget: { type: 'string' },
        'webhook-host': { type: 'string' },
        'webhook-port': { type: 'string' },
        'webhook-url': { type: 'string' },
        'no-webhooks': { type: 'boolean' },
        'seeded-state': { type: 'boolean' },
        'brand-json': { type: 'string' },
        'allow-http': { type: 'boolean' },
        'rate-limit-trip': { type: 'boolean' },
        'signing-vectors': { type: 'string' },
        junit: { type: 'string' },
        html: { type: 'string' },
        verbose: { type: 'boolean' },
      },
      positionals: ['url'],
    },
    io,
  );
  if (typeof parsed === 'number') return parsed;
  return withSource('run', io, async () => {
    const v = parsed.values;
    const connection = readConnection(parsed.positionals[0] ?? '', v, io);
    const budgetMs = parseSeconds('budget', v.budget);
    const webhookUrl = v['webhook-url'];
    if (webhookUrl !== undefined && !/^https?:\/\//i.test(webhookUrl))
      throw new UsageError(`--webhook-url takes an http(s) URL, not '${printable(webhookUrl)}'.`);
    if (
      v['no-webhooks'] === true &&
      (v['webhook-host'] !== undefined || v['webhook-port'] !== undefined || webhookUrl !== undefined)
    ) {
      throw new UsageError('--no-webhooks with --webhook-host/--webhook-port/--webhook-url: choose one.');
    }
    const port = v['webhook-port'] === undefined ? undefined : parsePort(v['webhook-port'], 0);
    const brandJson = v['brand-json'];
    if (brandJson !== undefined && !/^https?:\/\//i.test(brandJson))
      throw new UsageError(`--brand-json takes an http(s) URL, not '${printable(brandJson)}'.`);
    const signingVectors = v['signing-vectors'] === undefined ? undefined : path.resolve(io.cwd, v['signing-vectors']);
    if (signingVectors !== undefined && !existsSync(path.join(signingVectors, 'keys.json')))
      throw new UsageError(
        `--signing-vectors ${printable(v['signing-vectors'] ?? '')} has no keys.json: give the request-signing vectors folder (keys.json, positive/, negative/).`,
      );
    const compliance = await loadSource(v, io);
    const { runStoryboards } = await import('../storyboard/run.js');
    const { ComplianceError, selectStoryboards } = await import('../storyboard/index.js');
    if (v.id !== undefined) {
      try {
        selectStoryboards(compliance, undefined, { ids: v.id });
      } catch (error) {
        if (error instanceof ComplianceError) throw new UsageError(error.message);
        throw error;
      }
    }
    const { progressLine, renderHtml, renderJunit, renderSummary } = await import('../storyboard/report.js');
    const progress = io.stderr;
    // Ctrl-C stops the run where it is and still prints what was graded (exit 4).
    const stop = new AbortController();
    const stopped = untilStopped(io).then(() => stop.abort(new Error('interrupted')));
    void stopped;
    const report = await runStoryboards({
      agentUrl: connection.url,
      compliance,
      protocol: connection.protocol,
      headers: connection.headers,
      stepTimeoutMs: connection.timeoutMs,
      ...(connection.auth === undefined ? {} : { auth: connection.auth }),
      ...(connection.mcpEra === undefined ? {} : { mcpEra: connection.mcpEra }),
      ...(connection.a2aWire === undefined ? {} : { a2aWire: connection.a2aWire }),
      ...(connection.signing === undefined ? {} : { signing: connection.signing }),
      ...(connection.credentialOrigins === undefined ? {} : { credentialOrigins: connection.credentialOrigins }),
      ...(v.id === undefined ? {} : { ids: v.id }),
      ...(budgetMs === undefined ? {} : { budgetMs }),
      signal: stop.signal,
      ...(v['seeded-state'] === true ? { seededState: true } : {}),
      ...(brandJson === undefined ? {} : { brandJsonUrl: brandJson }),
      ...(v['allow-http'] === true ? { allowHttp: true } : {}),
      ...(v['rate-limit-trip'] === true ? { rateLimitTrip: true } : {}),
      ...(signingVectors === undefined ? {} : { signingVectors }),
      webhooks:
        v['no-webhooks'] === true
          ? false
          : {
              ...(v['webhook-host'] === undefined ? {} : { host: v['webhook-host'] }),
              ...(port === undefined ? {} : { port }),
              ...(webhookUrl === undefined ? {} : { publicUrl: webhookUrl }),
            },
      onEvent: (event) => {
        if (event.type === 'selected')
          progress.write(
            `adcp storyboard: ${event.storyboards.length} storyboards selected (compliance ${compliance.version})\n`,
          );
        if (event.type === 'storyboard_end')
          progress.write(`${progressLine(event.outcome, event.index, event.total)}\n`);
      },
    });
    const written: string[] = [];
    if (v.junit !== undefined) {
      const file = path.resolve(io.cwd, v.junit);
      writeFileSync(file, renderJunit(report));
      written.push(`JUnit XML: ${file}`);
    }
    if (v.html !== undefined) {
      const file = path.resolve(io.cwd, v.html);
      writeFileSync(file, renderHtml(report));
      written.push(`HTML report: ${file}`);
    }
    io.stdout.write(
      v.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderSummary(report, { verbose: v.verbose === true }),
    );
    // Last, where the eye lands: where the reports went.
    for (const line of written) progress.write(`adcp storyboard: ${printable(line)}\n`);
    if (report.storyboards.length === 0 && report.cut_short !== undefined) return EXIT.unreachable;
    return report.exit_code;
  });
}
