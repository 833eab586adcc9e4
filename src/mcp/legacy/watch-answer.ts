/**
 * Whether a parsed JSON-RPC message (or batch) is the answer to request `id`: a result or an
 * error carrying that id. An error with `id: null` (the server could not read the request)
 * counts too: it is about this request, and nothing else will come.
 */
export function answersRequest(message: unknown, id: number | string): boolean {
  if (Array.isArray(message)) return message.some((item) => answersRequest(item, id));
  if (message === null || typeof message !== 'object') return false;
  const record = message as Record<string, unknown>;
  if ('error' in record) return record['id'] === id || record['id'] === null;
  return 'result' in record && record['id'] === id;
}

/**
 * The JSON-RPC `error` object of a message answering request `id`, as the server wrote it (the
 * SDK's own `McpError` rewrites the message): `undefined` for a result or another message.
 */
export function rpcErrorOf(message: unknown, id: number | string): Record<string, unknown> | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const record = message as Record<string, unknown>;
  const error = record['error'];
  if (record['id'] !== id || error === null || typeof error !== 'object' || Array.isArray(error)) return undefined;
  return error as Record<string, unknown>;
}

/**
 * What the body of a JSON answer says about request `id`: the body parsed (`undefined` when it is
 * unreadable JSON, which the SDK reports as it parses) and the `problem`, `undefined` when it
 * answers the request. A JSON-RPC error answering it goes to `onError`, as the server wrote it.
 */
export function checkJsonAnswer(
  text: string,
  id: number | string,
  onError?: (error: Record<string, unknown>) => void,
): { parsed: unknown; problem: string | undefined } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { parsed: undefined, problem: undefined };
  }
  if (!answersRequest(parsed, id)) {
    return { parsed, problem: 'is not an answer to this request (another or no JSON-RPC id)' };
  }
  const error = rpcErrorOf(parsed, id);
  if (error !== undefined) onError?.(error);
  return { parsed, problem: errorWithoutId(parsed) };
}

function errorWithoutId(parsed: unknown): string | undefined {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const record = parsed as Record<string, unknown>;
  // The SDK cannot route an error with `id: null` to the call: it would wait for ever.
  if (record['id'] === null && 'error' in record) return 'is a JSON-RPC error with no request id';
  return undefined;
}

/**
 * One SSE line's field and value, by the SSE rules (the SDK's parser reads them so): the name
 * before the first colon (the whole line when there is none), the value after it less one
 * leading space. A comment line (`:` first) has the empty field name, which no reader acts on.
 */
export function sseField(line: string): { field: string; value: string } {
  const colon = line.indexOf(':');
  if (colon === -1) return { field: line, value: '' };
  const value = line.slice(colon + 1);
  return { field: line.slice(0, colon), value: value.startsWith(' ') ? value.slice(1) : value };
}

/** Sees the bytes of an SSE answer as they pass (see `capBody`'s `watch`). */
export interface SseAnswerWatcher {
  /** The next chunk of the body, passed on unchanged. */
  chunk(bytes: Uint8Array): void;
  /** The body ended cleanly (not on a read error, a cancel or the cap). */
  end(): void;
}

/**
 * Watches an SSE answer to request `id` as its bytes pass (the same event rules as the SDK's
 * parser: `message` events only, `data:` lines joined by LF), and calls `onUnsettled` with what
 * is wrong when it ends cleanly with no event that answered the request and no event id (with
 * one, the SDK may reconnect with Last-Event-ID and get the answer later), or at once on an
 * error with `id: null`, which the SDK cannot route to the call (as `checkJsonAnswer` refuses
 * it in a JSON answer). A plain watcher, not a stream of its own: the capped body calls it from
 * its `pull`, so the answer passes through one stream only.
 *
 * The SDK parses every event itself, so the watcher parses only what it must, when it must: an
 * event that may be a JSON-RPC error (its data holds `"error"`, or a `\u` escape that could spell
 * it) at once, to keep the error and to catch an id-less one before the SDK sees it; any other
 * event is kept as text and parsed only if the stream ends while the call is still open
 * (`isSettled` false), to tell "no answer came" from "the answer came". An answer the SDK has
 * already delivered (the usual end) is never parsed twice: on a large answer the second
 * `JSON.parse` cost as much as the SDK's own.
 */
export function watchSseAnswer(
  id: number | string,
  onUnsettled: (problem: string) => void,
  onError?: (error: Record<string, unknown>) => void,
  isSettled: () => boolean = () => false,
): SseAnswerWatcher {
  const decoder = new TextDecoder();
  let pending = '';
  let data: string[] = [];
  let event = '';
  let eventId = '';
  let answered = false;
  let resumable = false;
  /** Message events not parsed yet (no `"error"` in them): parsed at the end only if the call is open. */
  let unread: string[] = [];
  const read = (text: string): void => {
    try {
      const message: unknown = JSON.parse(text);
      if (answersRequest(message, id)) {
        answered = true;
        const error = rpcErrorOf(message, id);
        if (error !== undefined) onError?.(error);
        const problem = errorWithoutId(message);
        if (problem !== undefined) onUnsettled(problem);
      }
    } catch {
      // Not JSON: the SDK reports it.
    }
  };
  const line = (text: string): void => {
    if (text === '') {
      // Dispatch as the SDK's parser does: only events with a data line; an id makes it resumable.
      if (data.length > 0) {
        if (eventId !== '') resumable = true;
        if (event === '' || event === 'message') {
          const text = data.length === 1 ? (data[0] as string) : data.join('\n');
          // An error's key is `"error"`, or written with a \u escape: nothing else spells it.
          if (text.includes('"error"') || text.includes('\\u')) read(text);
          else unread.push(text);
        }
      }
      data = [];
      event = '';
      eventId = '';
      return;
    }
    const { field, value } = sseField(text);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id') eventId = value;
  };
  const scan = (text: string, final: boolean): void => {
    let buffer = pending + text;
    // A trailing CR may be the first half of a CRLF split across chunks: hold it back.
    const hold = !final && buffer.endsWith('\r') ? '\r' : '';
    if (hold !== '') buffer = buffer.slice(0, -1);
    const lines = buffer.split(/\r\n|\r|\n/);
    pending = (lines.pop() ?? '') + hold;
    // An event the stream ends before its blank line is dropped, by the SSE rules and the SDK.
    for (const l of lines) line(l);
  };
  return {
    chunk(bytes) {
      if (answered) return;
      if (isSettled()) {
        // The SDK delivered the answer (or the call ended otherwise): nothing left to watch for.
        answered = true;
        unread = [];
        return;
      }
      scan(decoder.decode(bytes, { stream: true }), false);
    },
    end() {
      if (!answered) scan(decoder.decode(), true);
      if (answered || resumable || isSettled()) return;
      for (const text of unread) if (!answered) read(text);
      unread = [];
      if (!answered) onUnsettled('ended without an answer to the request (no event carried its id)');
    },
  };
}
