// What the kit tests share: the stores a kit runs over (memory, a real SQLite file, PostgreSQL when
// ADCP_TEST_PG_URL is set), a kit served by createAdcpServer with its controller and capabilities,
// every answer checked against the 3.1 response schemas (validateResponses: strict) and called with
// the official MCP client, and a display product the schemas accept (bench/kit.bench.ts sells it too).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAdcpServer, type ListeningAdcpServer, type ServerWebhookOptions } from '../../src/server/index.js';
import {
  MemoryKitRecords,
  PgKitRecords,
  SqliteKitRecords,
  type KitRecords,
  type MediaBuyKit,
} from '../../src/kit/index.js';
import { PgDatabase } from '../../src/store/pg-database.js';
import { dropTestSchemas, pgSkip, pgUrl, testSchema } from '../pg/pg-test-env.js';
import type { Product } from '../../src/schemas/generated/adcp-3.1.js';

export type Json = Record<string, unknown>;

/** The creative agent's medium rectangle: the format of the kit tests' products. */
export const FORMAT = { agent_url: 'https://creative.adcontextprotocol.org', id: 'display_300x250' };

/** The account the kit tests buy for. */
export const account = { brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example' };

/** `news_display`: guaranteed display at a fixed 12 USD CPM, daily reporting; `fields` replace its own. */
export function kitProduct(fields: Json = {}): Product {
  return {
    product_id: 'news_display',
    name: 'News display',
    description: 'Display on news pages.',
    publisher_properties: [{ publisher_domain: 'news.example', selection_type: 'all' }],
    channels: ['display'],
    delivery_type: 'guaranteed',
    format_ids: [FORMAT],
    pricing_options: [{ pricing_option_id: 'cpm_fixed', pricing_model: 'cpm', currency: 'USD', fixed_price: 12 }],
    reporting_capabilities: {
      available_reporting_frequencies: ['daily'],
      expected_delay_minutes: 240,
      timezone: 'UTC',
      supports_webhooks: false,
      available_metrics: ['impressions', 'spend'],
      date_range_support: 'date_range',
    },
    ...fields,
  } as unknown as Product;
}

/** Where a kit keeps its records: opened fresh for each served kit, gone after its `close`. */
export interface KitStore {
  label: string;
  /** For `describe(..., { skip })`: the reason PostgreSQL is not there, else false. */
  skip: string | false;
  open(): { records: KitRecords; close(): Promise<void> };
}

const memory: KitStore = {
  label: 'memory',
  skip: false,
  open: () => {
    const records = new MemoryKitRecords();
    return { records, close: () => records.close() };
  },
};

export const KIT_STORES: readonly KitStore[] = [
  memory,
  {
    label: 'SQLite',
    skip: false,
    open: () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'adcp-kit-'));
      const records = new SqliteKitRecords({ path: path.join(dir, 'kit.db') });
      return {
        records,
        close: async () => {
          await records.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    label: 'PostgreSQL',
    skip: pgSkip,
    open: () => {
      const database = new PgDatabase({ url: pgUrl as string, schema: testSchema('kit') });
      const records = new PgKitRecords(database);
      return {
        records,
        close: async () => {
          await records.close();
          await database.close();
          await dropTestSchemas();
        },
      };
    },
  },
];

/** A tool's answer: the structured content, and its `adcp_error` if it failed. */
export interface KitAnswer {
  isError: boolean;
  body: Json;
  code: unknown;
  error: Json | undefined;
}

export interface ServedKit {
  server: ListeningAdcpServer;
  records: KitRecords;
  call(name: string, args: Json): Promise<KitAnswer>;
  /** Closes the client, the server and the records, in that order. */
  close(): Promise<void>;
}

/**
 * Serves the kit `make` builds over fresh records of `store` and connects the official MCP client;
 * `webhooks` are the server's webhook options (a signing key, loopback receivers).
 */
export async function serveKit(
  make: (records: KitRecords) => MediaBuyKit,
  store: KitStore = memory,
  options: { webhooks?: ServerWebhookOptions } = {},
): Promise<ServedKit> {
  const opened = store.open();
  const kit = make(opened.records);
  const server = await createAdcpServer({
    tools: kit.tools,
    testController: { scenarios: kit.scenarios },
    capabilities: kit.capabilities,
    validateResponses: 'strict',
    ...(options.webhooks === undefined ? {} : { webhooks: options.webhooks }),
  }).listen({ port: 0, host: '127.0.0.1' });
  const client = new Client({ name: 'kit-probe', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
  return {
    server,
    records: opened.records,
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      const body = result.structuredContent as Json;
      const error = body.adcp_error as Json | undefined;
      return { isError: result.isError === true, body, code: error?.code, error };
    },
    async close() {
      await client.close();
      await server.close();
      await opened.close();
    },
  };
}
