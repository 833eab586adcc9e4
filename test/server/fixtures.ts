import { AdcpToolError } from '../../src/server/tools/tool-error.js';
import type { AdcpToolDefinition } from '../../src/server/types.js';

/** A promise with its resolve exposed, to hold async work until a test releases it. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A small set of tools exercising every server path: sync, error, async, slow. */
export function testTools(options: { approval?: Promise<void>; slow?: Promise<void> } = {}): AdcpToolDefinition[] {
  return [
    {
      name: 'get_adcp_capabilities',
      description: 'Capabilities.',
      handler: () => ({ adcp: { major_versions: [3] }, supported_protocols: ['media_buy'] }),
    },
    {
      name: 'get_products',
      description: 'Products.',
      handler: (args) => ({
        message: 'Found 1 product',
        products: [{ product_id: 'p1', name: 'CTV', brief_seen: typeof args.brief === 'string' ? args.brief : null }],
      }),
    },
    {
      name: 'fail_rate_limited',
      description: 'Always rate-limited.',
      handler: () => {
        throw new AdcpToolError('RATE_LIMITED', 'Request rate exceeded', { recovery: 'transient', retryAfter: 3 });
      },
    },
    {
      name: 'explode',
      description: 'Throws a plain error with a secret in it.',
      handler: () => {
        throw new Error('secret connection string postgres://u:p@h/db');
      },
    },
    {
      name: 'create_media_buy',
      description: 'Async media buy.',
      mutating: false, // these tests are about tasks and wires; keys are test/server/idempotency-wire's
      handler: (_args, context) =>
        context.submit(
          async (progress) => {
            await progress.working('Approving', { percentage: 50 });
            await (options.approval ?? Promise.resolve());
            return { media_buy_id: 'mb_1', packages: [] };
          },
          { message: 'Awaiting approval' },
        ),
    },
    {
      name: 'sync_creatives',
      description: 'Slow optional tool (held by a gate).',
      mutating: false, // these tests are about tasks and wires; keys are test/server/idempotency-wire's
      handler: async () => {
        await (options.slow ?? Promise.resolve());
        return { creatives: [] };
      },
    },
  ];
}

/** Reads an SSE answer up to its first whole frame (bounded); the reader stays open for more. */
export async function readFirstSseFrame(
  response: Response,
): Promise<{ reader: ReadableStreamDefaultReader<string>; text: string }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (let i = 0; i < 100 && !text.includes('\n\n'); i += 1) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += chunk.value;
  }
  return { reader, text };
}
