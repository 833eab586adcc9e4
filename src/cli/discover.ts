import { parseCommand, printable } from './args.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS, readConnection } from './connection-flags.js';
import { EXIT, type CliIo, type Command } from './io.js';
import { openDiscovery, type OpenDiscovery } from './open-discovery.js';
import { renderDiscovery } from './render-discovery.js';
import { reportError } from './report-error.js';
import { safeJson } from './safe-json.js';
import { createStyle, wantsColor } from './style.js';

const HELP = `Usage: adcp discover <url> [options]

Shows what an agent offers: its cards (MCP server card, A2A agent card), for MCP the
era it speaks (2026-07-28 "modern" or the 2025 era) with its server's capabilities and
extensions, its AdCP capabilities (get_adcp_capabilities) and its tools with their MCP
task support.

Options:
${CONNECTION_HELP}
  -h, --help               show this help

Exit codes:
  0  the agent answered: its capabilities, or its tool list when it has no
     get_adcp_capabilities
  1  the agent refused get_adcp_capabilities (a missing or refused token...)
  2  usage error
  3  could not reach or read the agent: nothing answered, or only cards did (a
     wrong path, every request refused)

Example:
  adcp discover http://127.0.0.1:3000/mcp
`;

const SPEC = { name: 'discover', help: HELP, positionals: ['url'], options: CONNECTION_OPTIONS } as const;

/** `adcp discover`: cards, capabilities and tools as readable tables (or `--json`). */
export const discoverCommand: Command = (argv, io) => runDiscover(argv, io, openDiscovery);

export async function runDiscover(argv: string[], io: CliIo, open: OpenDiscovery): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io);
  if (typeof parsed === 'number') return parsed;
  try {
    const connection = readConnection(parsed.positionals[0] ?? '', parsed.values, io);
    const view = await open(connection);
    if (parsed.values.json === true) io.stdout.write(`${safeJson(view, 2)}\n`);
    else io.stdout.write(renderDiscovery(view, createStyle(wantsColor(io))));
    if (view.unusable === undefined) return EXIT.ok;
    // Cards alone are not the agent answering at this URL (a wrong path, every request refused).
    io.stderr.write(
      `adcp discover: nothing usable answered at ${printable(view.url)}: ${printable(view.unusable.reason)}\n`,
    );
    return view.unusable.refused ? EXIT.failed : EXIT.unreachable;
  } catch (error) {
    return reportError(io, 'discover', error, { json: parsed.values.json === true });
  }
}
