import type { Connection } from './connection-flags.js';
import type { TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import type { ProgressEvent } from '../client/transport.js';
import type { DiscoverResult } from '../client/discover.js';

/** What the CLI uses of AdcpClient: small, so a command can be tested with a stand-in. */
export interface CliClient {
  call(
    tool: string,
    args: JsonObject,
    options?: { timeoutMs?: number; task?: { ttl?: number }; onProgress?: (event: ProgressEvent) => void },
  ): Promise<TaskResult>;
  waitFor(
    result: TaskResult,
    options?: { timeoutMs?: number; onProgress?: (event: ProgressEvent) => void },
  ): Promise<TaskResult>;
  discover(options?: { timeoutMs?: number }): Promise<DiscoverResult>;
  close(): Promise<void>;
}

export type OpenClient = (connection: Connection) => Promise<CliClient>;

/** Opens the real AdcpClient, loaded lazily so `adcp --help` does not load the SDKs. */
export const openClient: OpenClient = async (connection) => {
  const { AdcpClient } = await import('../client/index.js');
  return new AdcpClient({
    url: connection.url,
    protocol: connection.protocol,
    headers: connection.headers,
    timeoutMs: connection.timeoutMs,
    ...(connection.auth !== undefined ? { auth: connection.auth } : {}),
  });
};
