/**
 * Turns a byte stream of `text/event-stream` into the `data` of each event (WHATWG HTML,
 * "Parsing an event stream"): lines end in CRLF, LF or CR; `data:` lines of one event are
 * joined with LF; a blank line dispatches; comments (`:`) and other fields are ignored; an
 * event with no data line is skipped. The byte cap is the caller's (see read-capped.ts).
 */
export async function* parseSse(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let data: string[] = [];
  let first = true;
  const flushLines = function* (final: boolean): Generator<string> {
    let start = 0;
    for (;;) {
      let end = -1;
      for (let i = start; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i);
        if (c === 10 || c === 13) {
          end = i;
          break;
        }
      }
      if (end === -1) break;
      // A CR at the very end of the buffer may be the first half of a CRLF split across chunks.
      if (buffer.charCodeAt(end) === 13 && end === buffer.length - 1 && !final) break;
      const line = buffer.slice(start, end);
      start = end + (buffer.charCodeAt(end) === 13 && buffer.charCodeAt(end + 1) === 10 ? 2 : 1);
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data')) {
        if (line.length === 4) data.push('');
        else if (line.charCodeAt(4) === 58 /* : */)
          data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      }
    }
    buffer = buffer.slice(start);
  };
  for await (const chunk of chunks) {
    buffer += decoder.decode(chunk, { stream: true });
    if (first && buffer.length > 0) {
      if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
      first = false;
    }
    yield* flushLines(false);
  }
  buffer += decoder.decode();
  yield* flushLines(true);
  // The spec drops an event not followed by a blank line; servers that close right after the
  // last `data:` line are common enough that losing the final state would be worse.
  if (buffer.startsWith('data:')) data.push(buffer.slice(buffer.charCodeAt(5) === 32 ? 6 : 5));
  if (data.length > 0) yield data.join('\n');
}
