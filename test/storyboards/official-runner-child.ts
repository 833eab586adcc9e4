// Runs storyboard files with the official runner's library (@adcp/sdk 6.11, test/peers/adcp-sdk),
// one after the other in this process, as its CLI's `storyboard run <agent> --file <yaml> --auth
// <token> --webhook-receiver --allow-http` would, and writes each result to the output file
// (a JSON array). The CLI itself is not used because on a single storyboard it drops
// `--allow-http`, and no command loads the test kit a storyboard names (`prerequisites.test_kit`,
// whose `auth.api_key` its `auth: { from_test_kit: true }` steps send): decision 0205, J. Both are
// passed here as the library's own options (`allow_http`, `test_kit`).
// Usage: node --import tsx official-runner-child.ts '<json: {agentUrl, protocol, token, compliance, files, out}>'
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

interface Job {
  agentUrl: string;
  protocol: 'mcp' | 'a2a';
  token: string;
  /** The compliance folder (`test-kits/` inside it). */
  compliance: string;
  files: string[];
  out: string;
}

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const require = createRequire(import.meta.url);
const lib = require(
  fileURLToPath(
    new URL('../peers/adcp-sdk/node_modules/@adcp/sdk/dist/lib/testing/storyboard/index.js', import.meta.url),
  ),
) as {
  loadStoryboardFile(path: string): unknown;
  runStoryboard(url: string, storyboard: unknown, options: Record<string, unknown>): Promise<unknown>;
};

// The runner logs progress on stdout; the parent reads only the output file.
const results: unknown[] = [];
for (const file of job.files) {
  try {
    const storyboard = lib.loadStoryboardFile(file) as { prerequisites?: { test_kit?: unknown } };
    const kit = storyboard.prerequisites?.test_kit;
    results.push(
      await lib.runStoryboard(job.agentUrl, storyboard, {
        protocol: job.protocol,
        ...(typeof kit === 'string'
          ? { test_kit: parse(readFileSync(`${job.compliance}${kit}`, 'utf8')) as unknown }
          : {}),
        auth: { type: 'bearer', token: job.token },
        allow_http: true,
        webhook_receiver: { mode: 'loopback_mock' },
        contracts: ['webhook_receiver_runner'],
      }),
    );
  } catch (error) {
    results.push({ file, harness_error: String((error as Error).stack ?? error).slice(0, 2000) });
  }
  writeFileSync(job.out, JSON.stringify(results));
}
process.exit(0);
