import { HandlerUnavailable } from './types.js';

/** What the signing handlers use from `src/webhooks/` (loaded lazily: core formats run without it). */
export interface WebhooksModule {
  runWebhookSigningVector?: (
    vector: unknown,
    keys: unknown[],
  ) => Promise<{ pass: boolean; expected: string; actual: string }>;
  verifyWebhookHmac?: (input: {
    secret: string;
    rawBody: string;
    timestamp: string | number | null | undefined;
    signature: string | null | undefined;
    now?: number;
  }) => { ok: true } | { ok: false; reason: string };
  signWebhookHmac?: (input: { secret: string; rawBody: string; timestamp?: number | string }) => { signature: string };
  validateWebhookSecret?: (secret: unknown) => { ok: true } | { ok: false; reason: string };
  canonicalizeTargetUri?: (
    url: string,
  ) => { ok: true; targetUri: string; authority: string } | { ok: false; reason: string };
}

// A variable specifier keeps the compiler from requiring the module at build time.
const WEBHOOKS_ENTRY = '../../webhooks/index.js';
let loaded: Promise<WebhooksModule | undefined> | undefined;

/** The webhooks module, or `undefined` when it is not there. */
export function loadWebhooks(): Promise<WebhooksModule | undefined> {
  loaded ??= import(WEBHOOKS_ENTRY).then(
    (m: unknown) => m as WebhooksModule,
    () => undefined,
  );
  return loaded;
}

/** The named webhooks functions, or `HandlerUnavailable` saying which one is missing. */
export async function requireWebhooks<K extends keyof WebhooksModule>(
  ...names: K[]
): Promise<Required<Pick<WebhooksModule, K>>> {
  const mod = await loadWebhooks();
  if (mod === undefined) throw new HandlerUnavailable('src/webhooks is not available');
  for (const name of names) {
    if (typeof mod[name] !== 'function') throw new HandlerUnavailable(`src/webhooks does not export ${String(name)}`);
  }
  return mod as Required<Pick<WebhooksModule, K>>;
}
