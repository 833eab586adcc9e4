// Builds docs/cli.md from the commands' own --help texts, so the page cannot drift from them.
// Regenerate: node --import tsx test/cli/cli-doc.ts
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { recordingIo } from './fake-io.js';

export const CLI_DOC_PATH = fileURLToPath(new URL('../../docs/cli.md', import.meta.url));
export const COMMANDS = [
  'call',
  'discover',
  'tasks',
  'webhooks listen',
  'inspect',
  'serve',
  'demo',
  'schemas',
  'signing generate',
  'storyboard',
  'conformance',
];

export async function help(argv: string[]): Promise<string> {
  const io = recordingIo();
  await main([...argv, '--help'], io);
  return io.out().trimEnd();
}

export async function renderCliDoc(): Promise<string> {
  const parts = [
    '# The `adcp` command line',
    '',
    "Each section is the command's own `--help` text (`node bin/adcp.js <command> --help`).",
    '',
    '```text',
    await help([]),
    '```',
  ];
  for (const command of COMMANDS) {
    parts.push('', `## adcp ${command}`, '', '```text', await help(command.split(' ')), '```');
  }
  return `${parts.join('\n')}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(CLI_DOC_PATH, await renderCliDoc());
  console.log(`wrote ${CLI_DOC_PATH}`);
}
