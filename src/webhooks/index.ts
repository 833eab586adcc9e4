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
export {
  staticJwks,
  JwksUnavailableError,
  type Jwk,
  type JwkSet,
  type JwksSource,
  type JwksInput,
} from '../signing/jwks.js';
export { remoteJwks, type RemoteJwksOptions } from '../signing/remote-jwks.js';
export {
  MemoryReplayStore,
  type ReplayStore,
  type ReplayOutcome,
  type MemoryReplayStoreOptions,
} from '../signing/replay-store.js';
export {
  RevocationList,
  type RevocationSource,
  type RevocationStatus,
  type RevocationListPayload,
} from '../signing/revocation.js';
export { canonicalizeTargetUri, type CanonicalTarget } from '../signing/canonicalize-target-uri.js';
export { runWebhookSigningVector, type WebhookSigningVector } from './run-signing-vector.js';
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
export { buildWebhookEnvelope, type WebhookEventInput } from './build-webhook-envelope.js';
export { AdmissionMonitor, type AdmissionAlarm, type AdmissionThresholds } from '../signing/admission-monitor.js';
export { remoteRevocationList, type RemoteRevocationListOptions } from '../signing/remote-revocation-list.js';
