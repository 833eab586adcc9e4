import type { JsonObject } from '../../core/types.js';
import { checkOutboundUrl } from '../../core/outbound-url.js';
import { createWebhookEmitter, webhookReach } from '../../webhooks/create-webhook-emitter.js';
import { validateWebhookSecret } from '../../webhooks/hmac.js';
import type { PushNotificationConfig, WebhookEmitterOptions } from '../../webhooks/create-webhook-emitter.js';
import type { WebhookChallengeOutcome } from '../../webhooks/webhook-challenge.js';
import type { OutboundReach } from '../../core/outbound-url.js';
import { isJsonObject } from '../../core/json-object.js';
import { AdcpToolError } from '../tools/tool-error.js';
import type { WebhookSend } from '../types.js';

/** How the server sends AdCP webhooks (the library's emitter unless `send` replaces it). */
export interface ServerWebhookOptions extends Pick<
  WebhookEmitterOptions,
  'signingKey' | 'allowInsecureUrls' | 'allowLoopbackUrls' | 'maxAttempts' | 'timeoutMs' | 'fetch' | 'onActivity'
> {
  /** Replaces the emitter (tests, queues); the registration is still checked. Challenges still go out signed. */
  send?: WebhookSend;
}

/** What the server adds to its webhook options: its own agent URL per wire, named in challenges. */
interface ServerWebhookWiring {
  /** This agent's URL over `protocol` (`publicUrl`'s, else the listen address's), undefined while unknown. */
  agentUrl?: (protocol: 'mcp' | 'a2a') => string | undefined;
}

/** One attempt of an outbox delivery: delivered, or why not and whether another attempt may help. */
export type WebhookAttempt = { ok: true } | { ok: false; retry: boolean; error: string; retryAfterMs?: number };

export interface ServerWebhooks {
  /**
   * Checks a buyer's `push_notification_config` when the task is accepted, so a channel the
   * server cannot honour is refused with a structured error instead of silently dropped
   * (async-operations.md, "Webhooks for submitted operations"). Returns the config to keep.
   */
  accept(config: unknown): JsonObject;
  send: WebhookSend;
  /** One attempt, no retry of its own (the outbox sender schedules retries in the store). */
  attempt(config: JsonObject, envelope: JsonObject, options: { signal: AbortSignal }): Promise<WebhookAttempt>;
  /** Attempts in all per delivery (`maxAttempts`, default 6). */
  readonly maxAttempts: number;
  /** Longest wait for one attempt (`timeoutMs`, default 10 s): an outbox lease covers it. */
  readonly timeoutMs: number;
  /** What a buyer's webhook URL may reach: public https unless `allowLoopbackUrls` or `allowInsecureUrls`. */
  readonly reach: OutboundReach;
  /**
   * A proof-of-control challenge from this agent to `url` (`ToolContext.webhooks.challenge`):
   * `seller_agent_url` is this agent's URL over `protocol`; signed with `signingKey`, within
   * `timeoutMs`, once.
   */
  challenge(
    url: string,
    fields: JsonObject,
    options: { protocol: 'mcp' | 'a2a'; signal: AbortSignal },
  ): Promise<WebhookChallengeOutcome>;
}

const field = 'push_notification_config';

/** The server's webhook channel: registration checks plus delivery through `createWebhookEmitter`. */
export function createServerWebhooks(options: ServerWebhookOptions & ServerWebhookWiring = {}): ServerWebhooks {
  const emitterOptions = {
    ...(options.signingKey === undefined ? {} : { signingKey: options.signingKey }),
    ...(options.allowInsecureUrls === undefined ? {} : { allowInsecureUrls: options.allowInsecureUrls }),
    ...(options.allowLoopbackUrls === undefined ? {} : { allowLoopbackUrls: options.allowLoopbackUrls }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.onActivity === undefined ? {} : { onActivity: options.onActivity }),
  };
  const emitter = createWebhookEmitter({
    ...emitterOptions,
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
  });
  let single: ReturnType<typeof createWebhookEmitter> | undefined;
  const maxAttempts = options.maxAttempts ?? 6;
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new RangeError('webhooks.maxAttempts must be an integer >= 1');
  }
  return {
    maxAttempts,
    timeoutMs: options.timeoutMs ?? 10_000,
    reach: webhookReach(options),
    async challenge(url, fields, challengeOptions) {
      const agentUrl = options.agentUrl?.(challengeOptions.protocol);
      if (agentUrl === undefined) return { ok: false, reason: 'unavailable' };
      return await emitter.challenge(
        url,
        { ...fields, seller_agent_url: agentUrl },
        { signal: challengeOptions.signal },
      );
    },
    async attempt(config, envelope, attemptOptions) {
      if (options.send !== undefined) {
        try {
          await options.send(config, envelope, attemptOptions);
          return { ok: true };
        } catch (error) {
          return { ok: false, retry: true, error: error instanceof Error ? error.message : String(error) };
        }
      }
      single ??= createWebhookEmitter({ ...emitterOptions, maxAttempts: 1 });
      const outcome = await single.deliver(config as unknown as PushNotificationConfig, envelope, attemptOptions);
      if (outcome.ok) return { ok: true };
      const error = [outcome.reason, outcome.status, outcome.error].filter((x) => x !== undefined).join(' ');
      // One attempt's `retries_exhausted` is a retryable answer (5xx, 429, network); the rest are final.
      return { ok: false, retry: outcome.reason === 'retries_exhausted' || outcome.reason === 'aborted', error };
    },
    accept(config) {
      if (!isJsonObject(config) || typeof config.url !== 'string') {
        throw new AdcpToolError('INVALID_REQUEST', `${field} must be an object with a url.`, { field });
      }
      const destination = checkOutboundUrl(config.url, { reach: webhookReach(options) });
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
