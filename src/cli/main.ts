import { processIo, EXIT, type CliIo, type Command } from './io.js';

/** Each command lives in its own module, loaded only when used so `adcp --help` stays fast. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
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
    'Run `adcp <command> --help` for the options of one command.',
    `Exit codes: ${EXIT.ok} ok, ${EXIT.failed} failed, ${EXIT.usage} usage error, ${EXIT.unreachable} agent unreachable.`,
    '',
  ].join('\n');

export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(USAGE());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.stderr.write(`adcp: unknown command '${name}'.\n\n${USAGE()}`);
    return EXIT.usage;
  }
  return (await command.load())(rest, io);
}

const isEntry = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isEntry) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`adcp: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
