import { UsageError } from './args.js';
import type { Connection } from './connection-flags.js';
import type { TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import type { ProgressEvent } from '../transport/transport.js';
import type { AdcpClient } from '../client/adcp-client.js';
import type { DiscoverResult } from '../client/discover.js';
import type { RetryNotice } from '../client/retry.js';
import type { ActivityListener } from '../telemetry/activity.js';

/** What the CLI uses of AdcpClient: small, so a command can be tested with a stand-in. */
export interface CliClient {
  call(
    tool: string,
    args: JsonObject,
    options?: {
      timeoutMs?: number;
      task?: { ttl?: number };
      onProgress?: (event: ProgressEvent) => void;
      onRetry?: (notice: RetryNotice) => void;
    },
  ): Promise<TaskResult>;
  waitFor(
    result: TaskResult,
    options?: { timeoutMs?: number; signal?: AbortSignal; onProgress?: (event: ProgressEvent) => void },
  ): Promise<TaskResult>;
  discover(options?: { timeoutMs?: number }): Promise<DiscoverResult>;
  /** The release spoken with the agent (learned from get_adcp_capabilities once per client). */
  negotiatedRelease?(signal?: AbortSignal): Promise<string>;
  close(): Promise<void>;
}

/** What a command adds to the connection flags: who is told of each request, answer and status change. */
export interface ClientHooks {
  onActivity?: ActivityListener;
}

export type OpenClient = (connection: Connection, hooks?: ClientHooks) => Promise<CliClient>;

/** Opens the real AdcpClient, loaded lazily so `adcp --help` does not load the SDKs. */
export const openClient: OpenClient = (connection, hooks) => openAdcpClient(connection, hooks);

/**
 * The one AdcpClient a command talks through, made from the connection flags; a flag the client
 * refuses (a token with a line break...) is a usage error.
 */
export async function openAdcpClient(connection: Connection, hooks: ClientHooks = {}): Promise<AdcpClient> {
  const { AdcpClient } = await import('../client/adcp-client.js');
  try {
    return new AdcpClient({
      url: connection.url,
      protocol: connection.protocol,
      headers: connection.headers,
      timeoutMs: connection.timeoutMs,
      ...(connection.mcpEra !== undefined ? { mcpEra: connection.mcpEra } : {}),
      ...(connection.a2aWire !== undefined ? { a2aWire: connection.a2aWire } : {}),
      ...(connection.auth !== undefined ? { auth: connection.auth } : {}),
      ...(connection.validate !== undefined ? { validate: connection.validate } : {}),
      ...(connection.signing !== undefined ? { signing: connection.signing } : {}),
      ...(connection.credentialOrigins !== undefined ? { credentialOrigins: connection.credentialOrigins } : {}),
      ...(hooks.onActivity !== undefined ? { onActivity: hooks.onActivity } : {}),
    });
  } catch (error) {
    // The client refuses bad options (a token with a line break...) before any I/O: a usage error here.
    if (error instanceof TypeError || error instanceof RangeError)
      throw new UsageError(error.message.replace(/^AdcpClient: /, ''));
    throw error;
  }
}
