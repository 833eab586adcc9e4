import type { ResponseCheck } from '../core/task-result.js';
import type { DedupStore, OperationFilter, OperationRecord, OperationStore } from '../store/types.js';
import type { JsonObject, TaskStatus } from '../core/types.js';
import type { HmacSecret } from './hmac.js';
import type { JwksInput } from '../signing/jwks.js';
import type { ReplayStore } from '../signing/replay-store.js';
import type { RevocationSource } from '../signing/revocation.js';
import type { AdmissionMonitor } from '../signing/admission-monitor.js';
import type { ActivityListener } from '../telemetry/activity.js';

/** The explicit, loud opt-out of signature verification. Never a default. */
export const UNSIGNED_WEBHOOKS = 'none-i-know-this-is-unsafe';

/** How deliveries are authenticated: exactly one scheme per receiver (security.md: "a switch, not both"). */
export type WebhookSignatureConfig =
  | {
      scheme: 'rfc9421';
      /** The seller's keys: `{ keys }`, an array, a `JwksSource`, or its brand.json `jwks_uri` (fetched, cached, capped). */
      jwks: JwksInput;
      /** Replay cache; default one in-memory cache for this handler (a fleet must share one). */
      replay?: ReplayStore;
      revocation?: RevocationSource;
      /** New-keyid admission pressure tracking and alarms. */
      admission?: AdmissionMonitor;
    }
  | {
      scheme: 'hmac';
      /** The secret registered in `push_notification_config.authentication.credentials`; a list during rotation. */
      secret: HmacSecret | readonly HmacSecret[];
    }
  | typeof UNSIGNED_WEBHOOKS;

export interface WebhookHandlerOptions {
  signature: WebhookSignatureConfig;
  /**
   * Check each delivery's `result` against the official schema for its task and status and put
   * the outcome on `event.validation` (the schemas must be on disk, see adcp-wire/schemas). Default false.
   */
  validate?: boolean;
  /**
   * The release the sender speaks: the envelope's required fields (a 3.0 sender may leave out
   * `operation_id`, decision 0243) and, with `validate`, the schemas results are checked
   * against. Default `3.1`.
   */
  adcpVersion?: string;
  /** Durable dedup keys (SQLite by default in production; memory for tests). */
  dedup: DedupStore;
  /** Operations advanced by verified events; optional. */
  operations?: OperationStore;
  /**
   * The seller agent (URL) this endpoint receives from: the dedup keyspace and the `agent` of
   * operations created from events. Default: `kid:<keyid>` (RFC 9421) or `hmac`/`unsigned`.
   */
  agent?: string;
  /** The caller's handler. Acknowledged (200) only after it resolves; a throw answers 500 and the key is released. */
  onEvent?: (event: WebhookEvent) => void | Promise<void>;
  /** Format the sender was registered for (preferred over detection); default: detect. */
  format?: 'mcp' | 'a2a';
  /** Maps an A2A Task id to the operation id; default: the Task id itself. */
  resolveA2AOperationId?: (taskId: string) => string | undefined | Promise<string | undefined>;
  /** Largest body, enforced while reading (default 1 MiB). */
  maxBodyBytes?: number;
  /** How long one delivery holds a key while its handler runs (default 60 s). */
  leaseMs?: number;
  /** How long a processed key is remembered (default 24 h, the spec's floor). */
  dedupTtlMs?: number;
  /**
   * Public origin the sender posts to (`https://buyer.example`), when TLS ends in front of this
   * process; the path and query come from the request. Default: the request's own URL.
   */
  publicOrigin?: string;
  /** How often processed keys past their TTL are deleted (default 10 min; 0 disables). */
  sweepIntervalMs?: number;
  /** Clock in ms (tests). */
  now?: () => number;
  /** Called for every refused delivery, with the status and typed reason (for logs/metrics). */
  onReject?: (rejection: WebhookRejection) => void;
  /**
   * Told of every delivery as one `webhook` `received` activity event (accepted, duplicate or
   * refused, with the status and reason; docs/telemetry.md); its errors are ignored.
   */
  onActivity?: ActivityListener;
}

/** One verified, de-duplicated delivery, as the caller's `onEvent` receives it. */
export interface WebhookEvent {
  format: 'mcp' | 'a2a';
  idempotencyKey: string;
  /** The payload's `operation_id` (MCP) or the resolved A2A operation; never taken from the URL. */
  operationId: string | undefined;
  taskId: string | undefined;
  taskType: string | undefined;
  status: TaskStatus | null;
  /** When the event happened (payload timestamp), in ms; receive time when the payload has none. */
  statusAt: number;
  /** The AdCP data (MCP `result`, or the A2A extraction). */
  data: JsonObject | null;
  /** Seller text, sanitised. */
  message: string | undefined;
  /** The whole parsed body. */
  payload: JsonObject;
  sender: { scheme: 'rfc9421' | 'hmac' | 'none'; scope: string; keyid?: string };
  /** The operation after this event was applied (when an OperationStore is configured). */
  operation: OperationRecord | undefined;
  /** True when the event is older than the operation's state and did not move it. */
  stale: boolean;
  /**
   * With `validate: true`: how `data` fared against its task's status-specific schema (reported,
   * never refused: the delivery is still accepted).
   */
  validation?: ResponseCheck;
  /** The dedup claim this delivery holds (for `SqliteDedupStore.completeSync` inside your own transaction). */
  claim: { scope: string; key: string; token: string; ttlMs: number };
}

export interface WebhookRejection {
  status: number;
  reason: string;
  detail?: string;
}

/** A receiver: fetch-style entry point, node:http adapter, and the operations it maintains. */
export interface WebhookHandler {
  readonly fetch: (request: Request) => Promise<Response>;
  /** A `node:http` request listener (a function property: pass it unbound to `createServer`). */
  readonly node: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
  getOperation(operationId: string): Promise<OperationRecord | undefined>;
  listOperations(filter?: OperationFilter): Promise<OperationRecord[]>;
  /** Resolves with the operation once final; rejects (AdcpWireError `timeout`/`aborted`) otherwise. */
  waitForOperation(
    operationId: string,
    options?: { timeoutMs?: number; signal?: AbortSignal; pollMs?: number },
  ): Promise<OperationRecord>;
  /** Stops the periodic sweep; the stores stay open (they belong to the caller). */
  close(): void;
}
