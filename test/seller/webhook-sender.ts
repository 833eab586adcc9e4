import { signWebhookHmac } from '../../src/webhooks/index.js';
import type { WebhookSend } from '../../src/server/types.js';

/**
 * A minimal test sender (HMAC when the config carries credentials, else unsigned), standing in for
 * the library's webhook emitter until the seller's default uses it.
 */
export function sellerWebhookSender(): WebhookSend {
  return async (config, payload) => {
    const body = JSON.stringify(payload);
    const auth = config.authentication as { credentials?: unknown } | undefined;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (typeof auth?.credentials === 'string') Object.assign(headers, signWebhookHmac({ secret: auth.credentials, rawBody: body }).headers);
    const response = await fetch(String(config.url), { method: 'POST', headers, body });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`webhook answered ${response.status}`);
  };
}
