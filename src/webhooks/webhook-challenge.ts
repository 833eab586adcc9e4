import { randomBytes } from 'node:crypto';
import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import { parseJsonStrict } from '../core/json.js';
import { encodeBase64Url } from '../signing/base64.js';
import { readCappedBody } from '../transport/capped-body.js';
import { deadlineSignal } from '../transport/deadline-signal.js';
import { UnsafeDestinationError } from '../transport/pinned-fetch.js';
import { signWebhookRequest, type WebhookSigningKey } from './sign-webhook-request.js';

/**
 * Why a proof-of-control challenge did not prove control of the URL. `no_answer` is one reason
 * for a timeout, a refused connection and a TLS failure alike: telling them apart to the party
 * that chose the URL would map networks for it (security.md, "Webhook URL validation (SSRF)",
 * rule 6). `unavailable`: this agent cannot send one (no webhook signing key, or no URL of its
 * own to name as `seller_agent_url`).
 */
export type WebhookChallengeFailure =
  'unsafe_url' | 'no_answer' | 'redirect_refused' | 'http_status' | 'wrong_echo' | 'unavailable' | 'aborted';

export type WebhookChallengeOutcome =
  | { ok: true }
  | {
      ok: false;
      reason: WebhookChallengeFailure;
      /** The HTTP status, for `http_status` and `redirect_refused`. */ status?: number;
    };

/** The largest challenge answer read (core/webhook-challenge-response.json: one field of at most 255 characters). */
const MAX_ANSWER_BYTES = 4096;

export interface SendWebhookChallengeInput {
  url: string;
  /**
   * The challenge's registration facts (core/webhook-challenge.json without `type` and
   * `challenge`, which are added here): `account_id`, `subscriber_id`, `seller_agent_url`,
   * `delivery_auth`, `event_types`.
   */
  fields: JsonObject;
  key: WebhookSigningKey;
  /** A fetch that refuses special-use destinations (`createPinnedFetch`) unless the caller chose otherwise. */
  fetch: typeof fetch;
  timeoutMs: number;
  signal?: AbortSignal;
  now?: () => number;
}

/**
 * The account-level webhook proof-of-control exchange (sync-accounts-request.json,
 * `notification_configs`, "Activation proof"; security.md): one HTTPS POST of a
 * `webhook.challenge` body with a fresh random `challenge`, signed with the seller's RFC 9421
 * webhook key whatever the subscriber's delivery auth, no redirect followed, within `timeoutMs`;
 * control is proven only by a 2xx whose body is exactly `{ "challenge": <value> }` or
 * `{ "token": <value> }` (core/webhook-challenge-response.json). One attempt: the buyer re-sends
 * to retry. Never throws for the receiver's doing; the URL is the caller's to check first.
 */
export async function sendWebhookChallenge(input: SendWebhookChallengeInput): Promise<WebhookChallengeOutcome> {
  const challenge = encodeBase64Url(randomBytes(32));
  const body = JSON.stringify({ type: 'webhook.challenge', challenge, ...input.fields });
  const headers = signWebhookRequest({
    url: input.url,
    body,
    key: input.key,
    ...(input.now === undefined ? {} : { now: input.now() }),
  });
  if (aborted(input.signal)) return { ok: false, reason: 'aborted' };
  const deadline = deadlineSignal(input.timeoutMs, input.signal, 'webhook challenge');
  try {
    const response = await input.fetch(input.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: deadline.signal,
    });
    const status = response.status;
    if (status < 200 || status >= 300) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: false, reason: status >= 300 && status < 400 ? 'redirect_refused' : 'http_status', status };
    }
    const answer = await readCappedBody(response, MAX_ANSWER_BYTES);
    if (answer === 'too_large') return { ok: false, reason: 'wrong_echo' };
    return echoes(answer.toString('utf8'), challenge) ? { ok: true } : { ok: false, reason: 'wrong_echo' };
  } catch (error) {
    if (aborted(input.signal)) return { ok: false, reason: 'aborted' };
    if (error instanceof UnsafeDestinationError) return { ok: false, reason: 'unsafe_url' };
    return { ok: false, reason: 'no_answer' };
  } finally {
    deadline.dispose();
  }
}

/** The answer names the challenge in exactly one of `challenge` or `token`, and nothing else. */
function echoes(text: string, challenge: string): boolean {
  const parsed = parseJsonStrict(text, { maxDepth: 4 });
  if (!parsed.ok || !isJsonObject(parsed.value)) return false;
  const keys = Object.keys(parsed.value);
  return keys.length === 1 && (keys[0] === 'challenge' || keys[0] === 'token') && parsed.value[keys[0]] === challenge;
}

/** Whether the caller gave up (a function, so the check after an await is not narrowed away). */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
