import { printable } from './args.js';
import { processIo, EXIT, type CliIo, type Command } from './io.js';

/** Each command lives in its own module, loaded only when used so `adcp --help` stays fast. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  call: {
    summary: 'call one AdCP tool on an agent (MCP or A2A), optionally waiting for async work',
    load: async () => (await import('./call.js')).callCommand,
  },
  discover: {
    summary: "show an agent's cards, MCP era and extensions, capabilities and tools",
    load: async () => (await import('./discover.js')).discoverCommand,
  },
  tasks: {
    summary: 'get or cancel a task: tasks get|cancel <url> <task-id>',
    load: async () => (await import('./tasks.js')).tasksCommand,
  },
  webhooks: {
    summary: 'receive and verify webhooks: webhooks listen --port N (--secret S | --jwks K)',
    load: async () => (await import('./webhooks.js')).webhooksCommand,
  },
  inspect: {
    summary: 'a local web page to explore, call and debug agents: inspect [url] [--port N]',
    load: async () => (await import('./inspect.js')).inspectCommand,
  },
  serve: {
    summary: 'run the reference seller (MCP and A2A) on loopback',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  demo: {
    summary: 'run a seller, a webhook receiver and a buyer end to end, then print a summary',
    load: async () => (await import('./demo.js')).demoCommand,
  },
  schemas: {
    summary: 'AdCP schema releases: schemas list | show <tool> | sync --version V [--from URL|FILE]',
    load: async () => (await import('./schemas.js')).schemasCommand,
  },
  signing: {
    summary: 'make a request-signing key pair: signing generate --kid KID',
    load: async () => (await import('./signing.js')).signingCommand,
  },
  storyboard: {
    summary: 'grade an agent with the official compliance storyboards: storyboard list | show <id> | run <url>',
    load: async () => (await import('./storyboard.js')).storyboardCommand,
  },
  conformance: {
    summary: 'run the AdCP conformance vectors in a folder',
    load: async () => (await import('./conformance.js')).conformanceCommand,
  },
};

const USAGE = (): string =>
  [
    'Usage: adcp <command> [options]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(14)}${c.summary}`),
    '',
    'Run `adcp <command> --help` for the options of one command; `adcp --version` for the version.',
    'Exit codes:',
    `  ${EXIT.ok}  ok`,
    `  ${EXIT.failed}  the agent answered with a failure, or a check failed`,
    `  ${EXIT.usage}  usage error (see --help)`,
    `  ${EXIT.unreachable}  could not reach or read the agent`,
    `  ${EXIT.pending}  --wait ran out of time before the task finished`,
    '',
  ].join('\n');

/** Runs the `adcp` command line; returns the exit code instead of exiting, for tests. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(USAGE());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    const { ADCP_WIRE_PACKAGE } = await import('../transport/package-version.js');
    io.stdout.write(`${ADCP_WIRE_PACKAGE.name} ${ADCP_WIRE_PACKAGE.version}\n`);
    return EXIT.ok;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    io.stderr.write(`adcp: unknown command '${printable(name)}'.\n\n${USAGE()}`);
    return EXIT.usage;
  }
  return (await command.load())(rest, io);
}

const isEntry = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isEntry) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`adcp: ${printable(error instanceof Error ? error.message : String(error))}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
