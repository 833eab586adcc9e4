// What one plain AdcpClient call costs in process-wide resources, counted: entering an
// AsyncLocalStorage switches on promise hooks for the whole process (every `await` of the user's
// code pays for them from then on), and a long-lived signal handed to the SDK collects listeners.
// A plain call makes one AbortController (the MCP request's own signal, which the SDK and fetch
// need) and enters no AsyncLocalStorage. Its answer is read through one capped body stream of the
// library's (a JSON answer is then handed to the SDK as the text read), never a TransformStream
// and its pipe.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { AdcpClient } from '../../src/client/index.js';
import { startMcpTestServer, type TestServer } from '../mcp/helpers/mcp-test-server.js';

const counts = { controllers: 0, storage: 0, responses: 0, readables: 0, transforms: 0 };
const LIBRARY = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * True when the caller of the instrumented function is the library's own code (src/), not the SDK,
 * the fetch (undici, or the MCP transport's fetch over node:http, whose one Response and body
 * stream per request are the fetch's own, as undici's are) or the test.
 */
function calledFromLibrary(): boolean {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  // frames[0]: calledFromLibrary; frames[1]: the instrumented function; frames[2]: its caller.
  const caller = frames[2] ?? '';
  return (
    caller.includes(LIBRARY) &&
    !caller.includes('node_modules') &&
    !caller.includes('.test.ts') &&
    !caller.includes('node-http-fetch.')
  );
}

const NativeAbortController = globalThis.AbortController;
globalThis.AbortController = class CountedAbortController extends NativeAbortController {
  constructor() {
    super();
    if (calledFromLibrary()) counts.controllers++;
  }
};
const NativeResponse = globalThis.Response;
globalThis.Response = class CountedResponse extends NativeResponse {
  constructor(...args: ConstructorParameters<typeof Response>) {
    super(...args);
    if (calledFromLibrary()) counts.responses++;
  }
};
const NativeReadableStream = globalThis.ReadableStream;
globalThis.ReadableStream = class CountedReadableStream<R> extends NativeReadableStream<R> {
  constructor(...args: ConstructorParameters<typeof ReadableStream<R>>) {
    super(...args);
    if (calledFromLibrary()) counts.readables++;
  }
} as typeof ReadableStream;
const NativeTransformStream = globalThis.TransformStream;
globalThis.TransformStream = class CountedTransformStream<I, O> extends NativeTransformStream<I, O> {
  constructor(...args: ConstructorParameters<typeof TransformStream<I, O>>) {
    super(...args);
    if (calledFromLibrary()) counts.transforms++;
  }
};
for (const method of ['run', 'exit', 'enterWith'] as const) {
  const original = AsyncLocalStorage.prototype[method] as (...args: unknown[]) => unknown;
  (AsyncLocalStorage.prototype as unknown as Record<string, unknown>)[method] = function (
    this: AsyncLocalStorage<unknown>,
    ...args: unknown[]
  ) {
    if (calledFromLibrary()) counts.storage++;
    return original.apply(this, args);
  };
}

/** A mutating tool (the client adds an idempotency key), untyped here. */
const MUTATING: string = 'create_media_buy';
const answer = () => ({ content: [], structuredContent: { status: 'completed', products: [] } });

for (const mode of ['json', 'sse'] as const) {
  describe(`one plain MCP call (${mode} answers)`, () => {
    let server: TestServer;
    let client: AdcpClient;
    before(async () => {
      server = await startMcpTestServer({
        mode,
        tools: [
          { name: 'get_products', handler: answer },
          { name: 'create_media_buy', handler: answer },
        ],
      });
      client = new AdcpClient({ url: server.url, protocol: 'mcp' });
      // Connecting, the era probe and the first call's one-time work are not per call.
      assert.equal((await client.call('get_products', { brief: 'warm' })).status, 'completed');
    });
    after(async () => {
      await client.close();
      await server.close();
    });

    const measure = async (calls: () => Promise<unknown>): Promise<typeof counts> => {
      counts.controllers = 0;
      counts.storage = 0;
      counts.responses = 0;
      counts.readables = 0;
      counts.transforms = 0;
      await calls();
      return { ...counts };
    };

    // Each answer passes through one capped stream of the library's, in a Response; a JSON answer
    // is read and checked, then handed to the SDK in a Response of the text read.
    const responsesPerCall = mode === 'json' ? 2 : 1;

    it('makes at most one AbortController and enters no AsyncLocalStorage', async () => {
      const seen = await measure(async () => {
        for (let i = 0; i < 3; i++) {
          assert.equal((await client.call('get_products', { brief: 'x' })).status, 'completed');
          assert.equal((await client.call(MUTATING, { brief: 'x' })).status, 'completed');
        }
      });
      assert.ok(seen.controllers <= 6 && seen.storage === 0, `for 6 calls: ${JSON.stringify(seen)}`);
      assert.ok(seen.responses <= 6 * responsesPerCall, `for 6 calls: ${JSON.stringify(seen)}`);
      assert.equal(seen.transforms, 0, `for 6 calls: ${JSON.stringify(seen)}`);
      assert.ok(seen.readables <= 6, `for 6 calls: ${JSON.stringify(seen)}`);
    });

    it('makes at most one AbortController with a caller signal and a timeout too', async () => {
      const caller = new NativeAbortController();
      const seen = await measure(async () => {
        for (let i = 0; i < 3; i++) {
          const result = await client.call('get_products', { brief: 'x' }, { signal: caller.signal, timeoutMs: 5000 });
          assert.equal(result.status, 'completed');
        }
      });
      assert.ok(seen.controllers <= 3 && seen.storage === 0, `for 3 calls: ${JSON.stringify(seen)}`);
    });
  });
}
