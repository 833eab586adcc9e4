import { Protocol, type RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ClientNotification,
  type ClientRequest,
  type ClientResult,
  type Implementation,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * A 2025-era MCP client session on the SDK's own `Protocol` (request ids, answers, cancellation,
 * progress, timeouts) and transports, opened with the `initialize` handshake as the SDK `Client`
 * opens it: `initialize` with no client capabilities, the server's protocol version checked
 * against the SDK's supported list and set on the transport, then `notifications/initialized`.
 *
 * Why not the SDK `Client`: its module loads AJV (with formats) and the SDK's experimental task
 * helpers for `callTool()`'s output schemas and for request handlers (sampling, elicitation,
 * roots) a buyer never offers; LegacyMcpTransport sends `tools/call` and `tools/list` through
 * `request()`, so none of it runs. Not loading it takes ~45 ms off a buyer's first answer on this
 * machine (bench/results/first-answer.md). Like the `Client` by default, this session does not
 * enforce capabilities before sending (`enforceStrictCapabilities` off): a server that does not
 * offer a method answers so itself.
 */
export class McpSessionClient extends Protocol<ClientRequest, ClientNotification, ClientResult> {
  readonly #clientInfo: Implementation;
  #serverCapabilities: ServerCapabilities | undefined;
  #serverVersion: Implementation | undefined;

  constructor(clientInfo: Implementation) {
    super();
    this.#clientInfo = clientInfo;
  }

  /** Connects and opens the session; a transport that already has a session id is reused as is. */
  override async connect(transport: Transport, options?: RequestOptions): Promise<void> {
    await super.connect(transport);
    if (transport.sessionId !== undefined) return;
    try {
      const result = await this.request(
        {
          method: 'initialize',
          params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: this.#clientInfo },
        },
        InitializeResultSchema,
        options,
      );
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
        throw new Error(`Server's protocol version is not supported: ${result.protocolVersion}`);
      }
      this.#serverCapabilities = result.capabilities;
      this.#serverVersion = result.serverInfo;
      transport.setProtocolVersion?.(result.protocolVersion);
      await this.notification({ method: 'notifications/initialized' });
    } catch (error) {
      void this.close();
      throw error;
    }
  }

  /** The capabilities the server named in its `initialize` answer. */
  getServerCapabilities(): ServerCapabilities | undefined {
    return this.#serverCapabilities;
  }

  /** The name and version the server named in its `initialize` answer. */
  getServerVersion(): Implementation | undefined {
    return this.#serverVersion;
  }

  // Called by Protocol only with `enforceStrictCapabilities` on, which this session leaves off.
  protected assertCapabilityForMethod(): void {}
  protected assertTaskCapability(): void {}
  // This session sends only `notifications/initialized` and the SDK's own cancellations.
  protected assertNotificationCapability(): void {}
  // It offers the server nothing to call (no sampling, elicitation, roots or tasks handlers).
  protected assertRequestHandlerCapability(): void {}
  protected assertTaskHandlerCapability(): void {}
}
