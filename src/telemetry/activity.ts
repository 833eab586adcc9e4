/**
 * The activity stream: one plain event per request, response, status change and webhook, for
 * applications without OpenTelemetry (`onActivity` on AdcpClient, createAdcpServer and
 * createWebhookHandler). Events carry identifiers, statuses, codes and timings, never bodies,
 * tokens or keys; seller strings in them are sanitised.
 */
export type ActivityEvent =
  ActivityRequest | ActivityResponse | ActivityStatusChange | ActivityWebhookReceived | ActivityWebhookSent;

interface ActivityBase {
  /** When it happened, ms since the epoch. */
  at: number;
  /** The W3C trace id of the span it belongs to, when an OpenTelemetry SDK is recording. */
  traceId?: string;
}

/** A request going out (client: each attempt and poll) or coming in (server: each tool invocation). */
export interface ActivityRequest extends ActivityBase {
  type: 'request';
  side: 'client' | 'server';
  tool: string;
  protocol: 'mcp' | 'a2a';
  /** Client only: 1 for the first attempt; polls count from 1 on their own. */
  attempt?: number;
  /** Client only: true for a task-status poll made by `waitFor`. */
  poll?: boolean;
}

/** The answer to one request: the AdCP status, or the error code of a request that threw. */
export interface ActivityResponse extends ActivityBase {
  type: 'response';
  side: 'client' | 'server';
  tool: string;
  protocol: 'mcp' | 'a2a';
  /** The AdCP status, or `error` when no answer could be read (see `errorCode`). */
  status: string;
  durationMs: number;
  attempt?: number;
  poll?: boolean;
  taskId?: string;
  /** `adcp_error.code` of a failed answer, or the `AdcpWireError` code of a thrown one. */
  errorCode?: string;
}

/** A followed task moved (client `waitFor`). */
export interface ActivityStatusChange extends ActivityBase {
  type: 'status_change';
  tool?: string;
  taskId?: string;
  operationId?: string;
  from: string;
  status: string;
}

/** A webhook delivery reached the receiver: `accepted`, `duplicate` or `refused` (with its reason). */
export interface ActivityWebhookReceived extends ActivityBase {
  type: 'webhook';
  direction: 'received';
  outcome: 'accepted' | 'duplicate' | 'refused';
  /** The HTTP status answered. */
  httpStatus: number;
  /** The typed reason (`signature_invalid`, `duplicate`, `processed`, ...). */
  reason: string;
  durationMs: number;
}

/** One attempt of a webhook delivery the emitter made. */
export interface ActivityWebhookSent extends ActivityBase {
  type: 'webhook';
  direction: 'sent';
  attempt: number;
  idempotencyKey: string;
  httpStatus?: number;
  /** Set when the attempt ended the delivery: `delivered`, or why it was given up. */
  outcome?: string;
}

export type ActivityListener = (event: ActivityEvent) => void;

/** Tells `listener` of `event`; a listener's throw never changes the work it watches. */
export function emitActivity(listener: ActivityListener | undefined, event: ActivityEvent): void {
  if (listener === undefined) return;
  try {
    listener(event);
  } catch {
    // An observer never breaks the call it observes.
  }
}

/** Refuses an `onActivity` that is not a function, at construction. */
export function checkActivityListener(owner: string, listener: unknown): void {
  if (listener !== undefined && typeof listener !== 'function')
    throw new TypeError(`${owner}: onActivity must be a function (event) => void`);
}
