import { AsyncLocalStorage } from 'node:async_hooks';

/** One HTTP request of a call and its answer, as the page shows it (secrets masked). */
export interface Exchange {
  id: number;
  /** When the request left, epoch ms. */
  at: number;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string>;
  /** The body as read (an SSE stream's events included), cut at `MAX_BODY_CHARS`. */
  responseBody?: string;
  /** Why the request failed (no answer), or why the body could not be read. */
  error?: string;
  /** From the request to the answer's headers. */
  ms?: number;
  truncated?: boolean;
}

/** Text kept per body: enough for any AdCP answer worth reading in a page. */
export const MAX_BODY_CHARS = 256 * 1024;
const MASK = '••••••';
/** Header names whose value is a credential wherever they appear. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
  'x-auth-token',
]);
/** JSON members whose string value is a credential (push_notification_config.authentication.credentials, tokens). */
const SECRET_MEMBERS =
  /("(?:credentials|token|access_token|refresh_token|client_secret|password|api_key)"\s*:\s*)"(?:[^"\\]|\\.)*"/g;

/**
 * Hides credentials in what the page sees: the values of credential headers (keeping the scheme,
 * `Bearer ••••••`), the headers the user named as carrying a secret, every occurrence of a known
 * secret (the bearer token, the webhook secret) in any text, and JSON members named like a
 * credential.
 */
export class SecretMask {
  readonly #secrets = new Set<string>();
  readonly #headers = new Set<string>();

  /** A value never to show (ignored when shorter than 6 characters: masking it would garble the text). */
  addSecret(value: string | undefined): void {
    if (value !== undefined && value.length >= 6) this.#secrets.add(value);
  }

  /** A header the user set: its value is treated as a secret. */
  addHeader(name: string, value: string): void {
    this.#headers.add(name.toLowerCase());
    this.addSecret(value);
  }

  text(value: string): string {
    let out = value.replace(SECRET_MEMBERS, `$1"${MASK}"`);
    for (const secret of this.#secrets) out = out.split(secret).join(MASK);
    return out;
  }

  headers(headers: Headers): Record<string, string> {
    const out: Record<string, string> = {};
    headers.forEach((value, name) => {
      const lower = name.toLowerCase();
      if (SECRET_HEADERS.has(lower) || this.#headers.has(lower)) {
        const scheme = /^(Bearer|Basic|Token|DPoP)\s/i.exec(value)?.[1];
        out[lower] = scheme === undefined ? MASK : `${scheme} ${MASK}`;
      } else out[lower] = this.text(value);
    });
    return out;
  }

  /** A JSON value with every secret masked (round-trips through text: the mask works on text). */
  json<T>(value: T): T {
    if (value === undefined) return value;
    return JSON.parse(this.text(JSON.stringify(value))) as T;
  }
}

/** Where the exchanges of the work running now go (a call, its follow-up, a discovery). */
export interface WireScope {
  exchanges: Exchange[];
  /** Told when an exchange is added or its body finished reading. */
  onChange?: (exchange: Exchange) => void;
}

const scopes = new AsyncLocalStorage<WireScope>();

/** Runs `work` with every request it makes through a recording fetch logged into `scope`. */
export function inScope<T>(scope: WireScope, work: () => Promise<T>): Promise<T> {
  return scopes.run(scope, work);
}

/**
 * A fetch that records each request and answer (headers and bodies, masked) into the scope the
 * caller runs in, then hands the answer on untouched: the body is read from a clone, so the
 * transport streams as before. Bodies still being read when the owner closes are cut short.
 */
export function recordingFetch(base: typeof fetch, mask: SecretMask): { fetch: typeof fetch; close(): void } {
  let next = 1;
  const readers = new Set<ReadableStreamDefaultReader<Uint8Array>>();
  const record: typeof fetch = async (input, init) => {
    const scope = scopes.getStore();
    if (scope === undefined) return base(input, init);
    const request = input instanceof Request ? input : undefined;
    const headers = new Headers(init?.headers ?? request?.headers);
    const exchange: Exchange = {
      id: next++,
      at: Date.now(),
      method: (init?.method ?? request?.method ?? 'GET').toUpperCase(),
      url: mask.text(input instanceof Request ? input.url : String(input)),
      requestHeaders: mask.headers(headers),
    };
    const body = bodyText(init?.body);
    if (body !== undefined) exchange.requestBody = mask.text(cut(body, exchange));
    scope.exchanges.push(exchange);
    scope.onChange?.(exchange);
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      exchange.error = error instanceof Error ? error.message : String(error);
      exchange.ms = Date.now() - exchange.at;
      scope.onChange?.(exchange);
      throw error;
    }
    exchange.ms = Date.now() - exchange.at;
    exchange.status = response.status;
    exchange.responseHeaders = mask.headers(response.headers);
    scope.onChange?.(exchange);
    if (response.body !== null) {
      const reader = response.clone().body!.getReader();
      readers.add(reader);
      void readAll(reader, exchange, mask)
        .finally(() => readers.delete(reader))
        .then(() => scope.onChange?.(exchange));
    }
    return response;
  };
  return {
    fetch: record,
    close() {
      for (const reader of readers) void reader.cancel().catch(() => undefined);
      readers.clear();
    },
  };
}

async function readAll(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  exchange: Exchange,
  mask: SecretMask,
): Promise<void> {
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (text.length > MAX_BODY_CHARS) {
        exchange.truncated = true;
        text = text.slice(0, MAX_BODY_CHARS);
        await reader.cancel().catch(() => undefined);
        break;
      }
      exchange.responseBody = mask.text(text);
    }
    text += decoder.decode();
  } catch (error) {
    exchange.error ??= `body: ${error instanceof Error ? error.message : String(error)}`;
  }
  exchange.responseBody = mask.text(text);
}

function bodyText(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(new Uint8Array(body));
  if (body instanceof URLSearchParams) return body.toString();
  return body === undefined || body === null ? undefined : '(a streamed body, not recorded)';
}

function cut(text: string, exchange: Exchange): string {
  if (text.length <= MAX_BODY_CHARS) return text;
  exchange.truncated = true;
  return text.slice(0, MAX_BODY_CHARS);
}
