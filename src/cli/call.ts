import { UsageError, parseCommand, printable } from './args.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS, readConnection } from './connection-flags.js';
import { interruptSignal } from './until-stopped.js';
import { EXIT, type CliIo, type Command } from './io.js';
import { openClient, type CliClient, type OpenClient } from './open-client.js';
import { AdcpValidationError } from '../client/validation-error.js';
import type { ValidationIssue } from '../schemas/validation-result.js';
import { createProgressLine } from './progress-line.js';
import { readPayload } from './read-payload.js';
import { renderResult, resultToJson } from './render-result.js';
import { reportError } from './report-error.js';
import { safeJson } from './safe-json.js';
import { createStyle, wantsColor } from './style.js';
import { describeProgress } from './describe-progress.js';
import { activityToJson, formatActivity, type CliActivity } from './format-activity.js';
import type { TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import type { ProgressEvent } from '../transport/transport.js';
import type { RetryNotice } from '../client/retry.js';

const HELP = `Usage: adcp call <url> <tool> [json | @file | @-] [options]

Calls one AdCP tool on an agent over MCP or A2A and prints the answer.
The arguments are a JSON object, inline, from a file (@args.json) or from stdin (@-).
With --wait, --timeout bounds the call and the wait together (default 600 s then).

Options:
${CONNECTION_HELP}
  --wait                   follow async work (submitted/working) to its end, with a progress line
  --task                   ask for an MCP Task-augmented call (2025 era, tools with task
                           support; on MCP 2026-07-28 the agent decides and this adds nothing)
  --webhook URL            ask the agent to push status changes to URL (push_notification_config)
  --webhook-secret SECRET  sign those webhooks with HMAC-SHA256 (legacy scheme) using SECRET
  --verbose                print the activity on stderr, one line each: every request and
                           answer (status, error code, ms, task id), retry, poll and status
                           change (with --json: one JSON object per line); never bodies or tokens
  --validate               check the arguments against the tool's request schema before sending
                           (nothing is sent if they fail) and the answer against its response
                           schema, of the release negotiated with the agent
  -h, --help               show this help

Exit codes:
  0  completed, or accepted for async work (submitted/working) without --wait
  1  the agent answered failed, rejected, canceled, input-required or auth-required; with
     --validate, the answer does not match its schema (it is still printed)
  2  usage error; with --validate, arguments that do not match the request schema
  3  could not reach or read the agent
  4  --wait ran out of time before the task finished
  130  Ctrl-C during --wait: stopped waiting; the task still runs (its id is printed)

Examples:
  adcp call http://127.0.0.1:3000/mcp get_products '{"buying_mode":"brief","brief":"coffee lovers"}'
  adcp call http://127.0.0.1:3000/mcp create_media_buy @buy.json --wait
`;

const SPEC = {
  name: 'call',
  help: HELP,
  positionals: ['url', 'tool', 'json'],
  min: 2,
  options: {
    ...CONNECTION_OPTIONS,
    wait: { type: 'boolean' },
    task: { type: 'boolean' },
    webhook: { type: 'string' },
    'webhook-secret': { type: 'string' },
    verbose: { type: 'boolean' },
    validate: { type: 'boolean' },
  },
} as const;

/** `adcp call`: one tool call, optionally followed to its end. */
export const callCommand: Command = (argv, io) => runCall(argv, io, openClient);

export async function runCall(argv: string[], io: CliIo, open: OpenClient): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [url = '', tool = '', json] = positionals;
  const style = createStyle(wantsColor(io));
  let client;
  let waiting = false;
  let attempts = 1;
  let pending: TaskResult | undefined;
  let seenTaskId: string | undefined;
  let agentUrl = url;
  let interrupt: { signal: AbortSignal; release(): void } | undefined;
  try {
    // Names as agents list them: snake_case tools, and legacy slash names such as tasks/get.
    if (!/^[a-z][a-z0-9_./-]{0,99}$/i.test(tool)) {
      throw new UsageError(`'${printable(tool)}' is not a tool name, like get_products.`);
    }
    const waitDefault = values.wait === true ? 600_000 : 30_000;
    const connection = readConnection(url, values, io, waitDefault);
    if (values.validate === true) connection.validate = 'both';
    const args: JsonObject = await readPayload(json, io.cwd);
    if (values.webhook !== undefined)
      args['push_notification_config'] = webhookConfig(values.webhook, values['webhook-secret']);
    else if (values['webhook-secret'] !== undefined) throw new UsageError('--webhook-secret needs --webhook URL.');
    agentUrl = connection.url;
    const progress = createProgressLine(io.stderr, { clock: values.wait === true });
    // --verbose: the activity stream on stderr, above the progress line (stdout stays the answer).
    const verbose = values.verbose === true;
    const activityStyle = createStyle(wantsColor(io, 'stderr'));
    const show = (event: CliActivity): void => {
      if (values.json === true) io.stderr.write(`${safeJson(activityToJson(event))}\n`);
      else progress.above(formatActivity(event, activityStyle));
    };
    client = await open(connection, verbose ? { onActivity: show } : {});
    // Ctrl-C while waiting stops the wait at once; the work stays at the agent, so say its ids.
    interrupt = values.wait === true ? interruptSignal(io) : undefined;
    // Progress is for people: on a terminal, or when asked to wait; never mixed into --json.
    const quiet = values.json === true || (values.wait !== true && io.stderr.isTTY !== true);
    const onProgress = (event: ProgressEvent) => {
      if (event.taskId !== undefined) seenTaskId ??= event.taskId;
      if (!quiet) progress.update(describeProgress(event));
    };
    const started = Date.now();
    // Retries are never silent: the next attempt, the wait and why, on stderr (stdout stays the answer).
    const onRetry = (notice: RetryNotice) => {
      attempts = notice.attempt;
      if (verbose) return show({ type: 'retry', at: Date.now(), tool, ...notice });
      const why = notice.agentAsked ? 'as the agent asked' : 'backing off';
      const text = `… ${notice.reason}: attempt ${notice.attempt} of ${notice.maxAttempts}, waiting ${formatSeconds(notice.delayMs)} ${why}`;
      if (values.json === true) io.stderr.write(`${printable(text)}\n`);
      else progress.update(text);
    };
    let result: TaskResult = await client.call(tool, args, {
      timeoutMs: connection.timeoutMs,
      onRetry,
      ...(values.task === true ? { task: {} } : {}),
      // On A2A a progress callback streams the call: only when someone watches.
      ...(quiet ? {} : { onProgress }),
    });
    pending = result;
    if (values.wait === true && (result.status === 'submitted' || result.status === 'working')) {
      if (!quiet)
        progress.update(
          describeProgress({
            lifecycle: result.taskId !== undefined ? 'adcp' : result.protocol,
            status: result.status,
            ...(result.taskId ? { taskId: result.taskId } : {}),
          }),
        );
      const remaining = Math.max(1, connection.timeoutMs - (Date.now() - started));
      waiting = true;
      try {
        const signal = interrupt?.signal;
        result = await client.waitFor(result, { timeoutMs: remaining, onProgress, ...(signal ? { signal } : {}) });
      } finally {
        progress.done();
      }
      waiting = false;
    }
    progress.done();
    if (values.validate === true && result.validation === undefined && result.data !== undefined) {
      await checkAnswer(client, tool, result); // a result reached by --wait: the client checked only the first answer
    }
    const invalid = result.validation?.ok === false ? result.validation : undefined;
    if (values.json === true)
      io.stdout.write(
        `${safeJson({ ...resultToJson(result), ...(attempts > 1 ? { attempts } : {}), ...(result.validation ? { validation: result.validation } : {}) }, 2)}\n`,
      );
    else {
      io.stdout.write(renderResult(result, tool, style));
      if (attempts > 1) io.stdout.write(style.dim(`  after ${attempts} attempts\n`));
      if ((result.status === 'submitted' || result.status === 'working') && result.taskId !== undefined) {
        io.stdout.write(
          style.dim(
            `  follow it: adcp tasks get ${connection.url} ${printable(result.taskId)}   (or call again with --wait)\n`,
          ),
        );
      }
    }
    if (invalid !== undefined) {
      io.stderr.write(
        `adcp call: the answer does not match the AdCP ${invalid.release} schema ${invalid.schema ?? ''} [invalid_response]:\n${formatIssues(invalid.issues)}`,
      );
      return EXIT.failed;
    }
    return exitFor(result);
  } catch (error) {
    if (error instanceof AdcpValidationError) {
      if (values.json === true)
        io.stdout.write(
          `${safeJson({ error: { code: error.code, tool: error.tool, release: error.release, issues: error.issues } }, 2)}\n`,
        );
      io.stderr.write(
        `adcp call: the arguments do not match the AdCP ${error.release} request schema of ${printable(tool)}; nothing was sent [invalid_request]:\n${formatIssues(error.issues)}`,
      );
      return EXIT.usage;
    }
    const interrupted = waiting && interrupt?.signal.aborted === true;
    if (interrupted || (waiting && isTimeout(error))) {
      // The work exists at the agent: never leave without its ids.
      const taskId = pending?.taskId ?? seenTaskId;
      const a2aTask = pending?.transportTaskId;
      if (values.json === true && pending !== undefined) {
        const doc: Record<string, unknown> = { ...resultToJson(pending), attempts };
        doc[interrupted ? 'interrupted' : 'timed_out'] = true;
        if (taskId !== undefined) doc['task_id'] = taskId;
        io.stdout.write(`${safeJson(doc, 2)}\n`);
      }
      const follow =
        taskId !== undefined
          ? `adcp tasks get ${agentUrl} ${printable(taskId)}`
          : a2aTask !== undefined
            ? `adcp tasks get ${agentUrl} ${printable(a2aTask)} --transport-task`
            : `adcp tasks get`;
      if (interrupted) {
        io.stderr.write(`adcp call: interrupted; the task is still running at the agent. Follow it: ${follow}\n`);
        return EXIT.interrupted;
      }
      io.stderr.write(
        `adcp call: the task did not finish within --timeout; it may still finish. Follow it: ${follow}\n`,
      );
      return EXIT.pending;
    }
    // The client refuses a misuse before sending (--task where tasks are not taken): a usage error.
    if (error instanceof TypeError || error instanceof RangeError)
      return reportError(io, 'call', new UsageError(error.message.replace(/^[\w.]+\([^)]*\): /, '')), {
        json: values.json === true,
      });
    return reportError(io, 'call', error, { json: values.json === true });
  } finally {
    interrupt?.release();
    await client?.close().catch(() => undefined);
  }
}

/** One line per issue: the JSON pointer (or the root), the keyword, the message. */
function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .map(
      (i) =>
        `  ${printable(i.pointer === '' ? '(root)' : i.pointer)}  ${printable(i.keyword)}: ${printable(i.message)}\n`,
    )
    .join('');
}

/** Checks a final answer the client did not (one reached by waiting) against the negotiated release. */
async function checkAnswer(client: CliClient, tool: string, result: TaskResult): Promise<void> {
  if (client.negotiatedRelease === undefined || result.data === undefined) return;
  const release = await client.negotiatedRelease();
  const { getValidator } = await import('../schemas/adcp-validator.js');
  const validator = getValidator(release);
  const error = result.data['adcp_error'];
  const checked =
    result.status === 'failed' && error !== null && typeof error === 'object' && !Array.isArray(error)
      ? validator.schema('core/error.json', error)
      : validator.result(tool, result.status, result.data);
  if (checked.schema === undefined) return;
  result.validation = { ok: checked.ok, release, schema: checked.schema, issues: checked.ok ? [] : checked.issues };
}

/** The exit code a result means (see the help text). */
export function exitFor(result: TaskResult): number {
  switch (result.status) {
    case 'completed':
    case 'submitted':
    case 'working':
      return EXIT.ok;
    case 'input-required':
    case 'auth-required':
    case 'failed':
    case 'rejected':
    case 'canceled':
      return EXIT.failed;
  }
}

function webhookConfig(url: string, secret: string | undefined): JsonObject {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new UsageError(`--webhook takes an http(s) URL, not '${printable(url)}'.`);
  }
  const config: JsonObject = { url };
  if (secret !== undefined) config['authentication'] = { schemes: ['HMAC-SHA256'], credentials: secret };
  return config;
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

function isTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'timeout';
}
