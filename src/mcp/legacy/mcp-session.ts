import { authRefusal } from '../../core/signature-challenge.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AdcpWireError } from '../../core/wire-error.js';
import { sanitizeSellerText } from '../../core/sanitize.js';
import { RequestLedger, type CallContext } from './call-context.js';
import { isRetryableStatus } from '../../transport/retryable-status.js';
import { createCappedFetch, type CappedFetch } from './capped-fetch.js';
import { ADCP_WIRE_PACKAGE } from '../../transport/package-version.js';
import { McpSessionClient } from './mcp-session-client.js';
import { withoutListenStream } from './without-listen-stream.js';

export interface McpSessionOptions {
  url: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Cap for answers that belong to no call (initialize, GET streams). */
  maxBytes: number;
  /** Ceiling for connecting and initialising, in ms. */
  connectTimeoutMs?: number;
}

/** Longest wait for the session DELETE on close, ms. */
const TERMINATE_TIMEOUT_MS = 2000;

/** Which MCP HTTP transport the agent turned out to speak. */
export type McpWire = 'streamable-http' | 'sse';

interface Connection {
  client: McpSessionClient;
  transport: Transport;
  wire: McpWire;
  /** The requests this connection's transport sent for calls, for its fetch to find. */
  requests: RequestLedger;
}

/**
 * One MCP connection and session for one AdcpClient: connected on first use (Streamable HTTP,
 * then the older HTTP+SSE transport for agents that only speak that), reused by every call,
 * re-established when the server forgets the session (HTTP 404), released by `close()`.
 * Nothing is shared between sessions: two clients with different credentials never share one.
 */
export class McpSession {
  readonly #options: McpSessionOptions;
  /** The calls in flight, to fail them all when the session is lost or closed. */
  readonly #calls = new Set<CallContext>();
  readonly #capped: CappedFetch;
  #connection: Promise<Connection> | undefined;
  /** The open connection once `#connection` has resolved, for synchronous reads. */
  #current: Connection | undefined;
  #closed = false;
  #wire: McpWire | undefined;
  /** The call whose `send` is running now (synchronously): its requests are marked as its own. */
  #sending: CallContext | undefined;

  constructor(options: McpSessionOptions) {
    this.#options = options;
    const capped: Parameters<typeof createCappedFetch>[0] = {
      url: options.url,
      maxBytes: options.maxBytes,
      // On the legacy HTTP+SSE transport every answer arrives on the one GET stream: an event
      // over the cap breaks that stream, so every call waiting on it fails with the same error.
      onStreamOverflow: (error) => this.#loseLegacyStream(error),
      onStreamEnd: (error) => this.#loseLegacyStream(error),
    };
    if (options.fetch !== undefined) capped.fetch = options.fetch;
    this.#capped = createCappedFetch(capped);
  }

  /** The wire of the current connection, once connected. */
  get wire(): McpWire | undefined {
    return this.#wire;
  }

  /** The open connection, when there is one (no waiting). */
  get current(): Connection | undefined {
    return this.#current;
  }

  /** The connected SDK client (connecting on first use). */
  connect(): Promise<Connection> {
    if (this.#closed)
      return Promise.reject(new AdcpWireError('aborted', `the MCP client for ${this.#options.url} is closed`));
    if (this.#connection === undefined) {
      const attempt = this.#open();
      this.#connection = attempt;
      void attempt.then(
        (connection) => {
          if (this.#connection === attempt) this.#current = connection;
        },
        () => {
          if (this.#connection === attempt) this.#connection = undefined;
        },
      );
    }
    return this.#connection;
  }

  /**
   * Runs `send` as call `context`: every request it sends carries the call's byte cap, signal
   * and failure (see `RequestLedger`). `send` must hand its request to the SDK synchronously (as
   * `client.request()` does). When the server answers 404 to a request carrying a session id
   * (it restarted, or expired the session), reconnects once and sends again; the server
   * dispatched nothing, so resending is safe.
   */
  async run<T>(context: CallContext, send: (client: McpSessionClient) => Promise<T>): Promise<T> {
    this.#calls.add(context);
    try {
      for (let attempt = 0; ; attempt++) {
        // Connecting is the session's, not this call's: its requests and streams outlive the call.
        const opening = this.connect();
        const connection = await opening;
        const sessionId = (connection.transport as { sessionId?: string }).sessionId;
        try {
          return await this.#sendAs(context, connection, send);
        } catch (error) {
          if (attempt === 0 && sessionId !== undefined && isSessionGone(error) && !context.signal.aborted) {
            this.#drop(opening, connection);
            context.rpcError = undefined;
            continue;
          }
          throw error;
        } finally {
          connection.requests.release(context);
        }
      }
    } finally {
      this.#calls.delete(context);
    }
  }

  /** Calls `send`, marking the requests it hands to the transport meanwhile as `context`'s. */
  #sendAs<T>(context: CallContext, connection: Connection, send: (client: McpSessionClient) => Promise<T>): Promise<T> {
    const outer = this.#sending;
    this.#sending = context;
    try {
      return send(connection.client);
    } finally {
      this.#sending = outer;
    }
  }

  /**
   * On the legacy HTTP+SSE transport every answer arrives on the one GET stream: when it ends,
   * breaks or runs over the cap, the session is gone. Every call waiting on it fails, and the
   * next call connects afresh. (A Streamable HTTP GET stream carries no answers: nothing to do.)
   */
  #loseLegacyStream(error: AdcpWireError): void {
    if (this.#wire !== 'sse' || this.#closed) return;
    for (const context of [...this.#calls]) context.fail(error);
    const current = this.#current;
    if (current === undefined) return;
    this.#connection = undefined;
    this.#current = undefined;
    void current.client.close().catch(() => undefined);
  }

  /** Drops the connection so that the next call connects afresh. */
  #drop(opening: Promise<Connection>, connection: Connection): void {
    if (this.#connection === opening) this.#connection = undefined;
    if (this.#current === connection) this.#current = undefined;
    void connection.client.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const connection = this.#connection;
    this.#connection = undefined;
    this.#current = undefined;
    this.#capped.abortAll();
    const closed = new AdcpWireError('aborted', `the MCP client for ${this.#options.url} was closed`);
    for (const context of [...this.#calls]) context.fail(closed);
    if (connection === undefined) return;
    const open = await connection.catch(() => undefined);
    if (open === undefined) return;
    // Ending the session politely (DELETE) must not hold close() up when the server hangs.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, TERMINATE_TIMEOUT_MS);
    });
    await Promise.race([terminate(open), limit]);
    clearTimeout(timer);
    this.#capped.abortAll();
    await open.client.close().catch(() => undefined);
  }

  async #open(): Promise<Connection> {
    const url = new URL(this.#options.url);
    const requestInit: RequestInit = this.#options.headers ? { headers: this.#options.headers } : {};
    const timeout = this.#options.connectTimeoutMs ?? 30_000;
    const requests = new RequestLedger();
    const streamable = new StreamableHTTPClientTransport(url, {
      fetch: withoutListenStream(this.#capped.fetchFor(requests)),
      requestInit,
    });
    let streamableError: unknown;
    try {
      return await this.#initialize(streamable, 'streamable-http', timeout, requests);
    } catch (error) {
      if (!isWrongTransport(error)) throw toConnectError(error, this.#options.url, this.#capped.lastRefusal());
      streamableError = error;
    }
    // Agents on the 2024-11-05 HTTP+SSE transport answer POST with 404/405: try that one.
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    const sseRequests = new RequestLedger();
    const sse = new SSEClientTransport(url, { fetch: this.#capped.fetchFor(sseRequests), requestInit });
    try {
      return await this.#initialize(sse, 'sse', timeout, sseRequests);
    } catch (error) {
      // Nothing at this path for either transport: say what the server said to the first try.
      if (isStatus(error, 404) || isStatus(error, 405)) throw toConnectError(streamableError, this.#options.url);
      throw toConnectError(error, this.#options.url);
    }
  }

  async #initialize(
    transport: Transport,
    wire: McpWire,
    timeout: number,
    requests: RequestLedger,
  ): Promise<Connection> {
    const client = new McpSessionClient({ name: ADCP_WIRE_PACKAGE.name, version: ADCP_WIRE_PACKAGE.version });
    this.#wire = wire;
    this.#track(transport, requests);
    await client.connect(transport, { timeout });
    return { client, transport, wire, requests };
  }

  /**
   * Marks each request the SDK hands to the transport while a call's `send` runs with its
   * JSON-RPC id, as that call's; notifications and answers to the server belong to no call (a
   * `notifications/cancelled` must go out even when the call's signal has fired).
   */
  #track(transport: Transport, requests: RequestLedger): void {
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]) => {
      const call = this.#sending;
      if (call !== undefined && 'method' in message && 'id' in message) requests.add(message.id, call);
      return send(message, options);
    };
  }
}

async function terminate(connection: Connection): Promise<void> {
  if (connection.transport instanceof StreamableHTTPClientTransport && connection.transport.sessionId !== undefined) {
    await connection.transport.terminateSession().catch(() => undefined);
  }
}

function isSessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/** A Streamable HTTP POST refused the way servers of the older transport refuse it. */
function isWrongTransport(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError)) return false;
  return error.code === 404 || error.code === 405 || error.code === 400;
}

/** An SDK transport error carrying HTTP `status` (the SSE transport's SseError has `code`). */
function isStatus(error: unknown, status: number): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === status;
}

function toConnectError(error: unknown, url: string, refusal?: { status: number; challenge: string | null }): Error {
  if (error instanceof AdcpWireError) return error;
  if (error instanceof StreamableHTTPError && typeof error.code === 'number' && error.code > 0) {
    const signature = authRefusal(error.code, refusal?.status === error.code ? refusal.challenge : undefined);
    const hint = error.code === 404 ? ' (nothing serves MCP at this path)' : signature.note;
    return new AdcpWireError(
      'http_status',
      `MCP server at ${url} answered HTTP ${error.code} while connecting${hint}`,
      {
        ...signature.fields,
        cause: error,
        status: error.code,
        retryable: isRetryableStatus(error.code),
        url,
      },
    );
  }
  // SDK messages can carry the server's own text (an HTTP error body): sanitise it.
  const message =
    (error instanceof Error ? sanitizeSellerText(error.message, { maxLength: 200 }) : undefined) ?? 'unknown failure';
  return new AdcpWireError('protocol', `could not open an MCP session with ${url}: ${message}`, {
    cause: error,
    url,
  });
}
