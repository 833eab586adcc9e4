import type { JsonObject } from '../core/types.js';
import { checkWebhookDestination } from '../webhooks/check-destination.js';
import { createWebhookEmitter } from '../webhooks/create-webhook-emitter.js';
import { validateWebhookSecret } from '../webhooks/hmac.js';
import type { WebhookEmitterOptions } from '../webhooks/create-webhook-emitter.js';
import { isJsonObject } from '../core/json-object.js';
import { AdcpToolError } from './tool-error.js';
import type { WebhookSend } from './types.js';

/** How the server sends AdCP webhooks (the library's emitter unless `send` replaces it). */
export interface ServerWebhookOptions extends Pick<
  WebhookEmitterOptions,
  'signingKey' | 'allowInsecureUrls' | 'maxAttempts' | 'timeoutMs' | 'fetch' | 'onActivity'
> {
  /** Replaces the emitter (tests, queues); the registration is still checked. */
  send?: WebhookSend;
}

export interface ServerWebhooks {
  /**
   * Checks a buyer's `push_notification_config` when the task is accepted, so a channel the
   * server cannot honour is refused with a structured error instead of silently dropped
   * (async-operations.md, "Webhooks for submitted operations"). Returns the config to keep.
   */
  accept(config: unknown): JsonObject;
  send: WebhookSend;
}

const field = 'push_notification_config';

/** The server's webhook channel: registration checks plus delivery through `createWebhookEmitter`. */
export function createServerWebhooks(options: ServerWebhookOptions = {}): ServerWebhooks {
  const emitter = createWebhookEmitter({
    ...(options.signingKey === undefined ? {} : { signingKey: options.signingKey }),
    ...(options.allowInsecureUrls === undefined ? {} : { allowInsecureUrls: options.allowInsecureUrls }),
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.onActivity === undefined ? {} : { onActivity: options.onActivity }),
  });
  return {
    accept(config) {
      if (!isJsonObject(config) || typeof config.url !== 'string') {
        throw new AdcpToolError('INVALID_REQUEST', `${field} must be an object with a url.`, { field });
      }
      const destination = checkWebhookDestination(config.url, { allowInsecure: options.allowInsecureUrls === true });
      if (!destination.ok) {
        throw new AdcpToolError('INVALID_REQUEST', `${field}.url refused: ${destination.reason}.`, {
          field: `${field}.url`,
        });
      }
      if (
        config.operation_id !== undefined &&
        (typeof config.operation_id !== 'string' || config.operation_id === '' || config.operation_id.length > 255)
      ) {
        throw new AdcpToolError('INVALID_REQUEST', `${field}.operation_id must be a string of 1 to 255 characters.`, {
          field: `${field}.operation_id`,
        });
      }
      const auth = config.authentication;
      if (auth !== undefined && auth !== null) {
        if (!isJsonObject(auth))
          throw new AdcpToolError('INVALID_REQUEST', `${field}.authentication must be an object.`, {
            field: `${field}.authentication`,
          });
        const schemes = auth.schemes === undefined ? ['HMAC-SHA256'] : auth.schemes;
        if (!Array.isArray(schemes) || !schemes.every((s) => typeof s === 'string')) {
          throw new AdcpToolError('INVALID_REQUEST', `${field}.authentication.schemes must be a list of strings.`, {
            field: `${field}.authentication.schemes`,
          });
        }
        if (auth.credentials !== undefined) {
          if (!schemes.includes('HMAC-SHA256') && !schemes.includes('Bearer')) {
            throw new AdcpToolError(
              'UNSUPPORTED_FEATURE',
              'Only the HMAC-SHA256 and Bearer webhook schemes are supported.',
              { field: `${field}.authentication.schemes` },
            );
          }
          const strength = validateWebhookSecret(auth.credentials);
          if (!strength.ok) {
            throw new AdcpToolError(
              'INVALID_REQUEST',
              `${field}.authentication.credentials refused: ${strength.reason}.`,
              { field: `${field}.authentication.credentials` },
            );
          }
          return config;
        }
      }
      if (options.send === undefined && options.signingKey === undefined) {
        throw new AdcpToolError(
          'UNSUPPORTED_FEATURE',
          'This agent has no webhook signing key; send authentication.credentials for HMAC-SHA256 webhooks.',
          { field },
        );
      }
      return config;
    },
    send:
      options.send ??
      (async (config, payload, sendOptions) => {
        const outcome = await emitter.deliver(
          config as unknown as Parameters<typeof emitter.deliver>[0],
          payload,
          sendOptions?.signal === undefined ? {} : { signal: sendOptions.signal },
        );
        if (!outcome.ok) throw new Error(`webhook delivery failed: ${outcome.reason}`);
      }),
  };
}
