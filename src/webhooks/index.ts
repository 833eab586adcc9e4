export {
  verifyWebhookSignature,
  type VerifyWebhookSignatureOptions,
  type WebhookRequestParts,
  type WebhookSignatureResult,
} from './verify-webhook-signature.js';
export {
  signWebhookHmac,
  verifyWebhookHmac,
  validateWebhookSecret,
  HMAC_SIGNATURE_HEADER,
  HMAC_TIMESTAMP_HEADER,
  type HmacFailure,
  type HmacSecret,
} from './hmac.js';
export {
  WEBHOOK_SIGNATURE_ERRORS,
  WEBHOOK_BODY_MALFORMED,
  WEBHOOK_SIGNING_TAG,
  type WebhookSignatureError,
} from '../signing/signature-codes.js';
export { canonicalizeTargetUri, type CanonicalTarget } from '../signing/canonicalize-target-uri.js';
export { signWebhookRequest, type SignWebhookRequestInput, type WebhookSigningKey } from './sign-webhook-request.js';
export { createWebhookHandler } from './create-webhook-handler.js';
export {
  UNSIGNED_WEBHOOKS,
  type WebhookEvent,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookRejection,
  type WebhookSignatureConfig,
} from './handler-types.js';
export {
  createWebhookEmitter,
  type WebhookEmitter,
  type WebhookEmitterOptions,
  type PushNotificationConfig,
  type DeliveryOutcome,
  type DeliveryAttempt,
} from './create-webhook-emitter.js';
export type { DeliveryFailure } from './delivery-policy.js';
export {
  sendWebhookChallenge,
  type SendWebhookChallengeInput,
  type WebhookChallengeFailure,
  type WebhookChallengeOutcome,
} from './webhook-challenge.js';
export { buildWebhookEnvelope, type WebhookEventInput } from './build-webhook-envelope.js';
export { AdmissionMonitor, type AdmissionAlarm, type AdmissionThresholds } from '../signing/admission-monitor.js';
