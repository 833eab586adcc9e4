// adcp-wire/signing: RFC 9421 request signing under the AdCP request profile, both sides.
export {
  signRequest,
  type RequestSigningKey,
  type RequestSigningOptions,
  type SignRequestInput,
} from './sign-request.js';
export { createSigningFetch } from './signing-fetch.js';
export {
  verifyRequestSignature,
  type ContentDigestPolicy,
  type RequestSignatureResult,
  type RequestSigningPolicy,
  type RequestSigningProfileVersion,
  type VerifyRequestSignatureOptions,
} from './verify-request-signature.js';
export { requestCallOf, type RequestCall } from './request-call.js';
export {
  resolveOperation,
  resolveParsedOperation,
  OPERATION_SOURCES,
  type OperationResolution,
  type OperationRequest,
  type OperationSource,
} from '../core/resolve-operation.js';
export { generateRequestSigningKey, signingOptionsFromJwk, type PrivateSigningJwk } from './signing-key-file.js';
export { REQUEST_SIGNATURE_ERRORS, REQUEST_SIGNING_TAG, type RequestSignatureError } from './signature-codes.js';
export { staticJwks, JwksUnavailableError, type Jwk, type JwkSet, type JwksSource, type JwksInput } from './jwks.js';
export { remoteJwks, type RemoteJwksOptions } from './remote-jwks.js';
export {
  brandJsonKeys,
  KeyDiscoveryError,
  type BrandJsonAgent,
  type BrandJsonKeysOptions,
  type KeyDiscoveryFailure,
} from './brand-json-keys.js';
export {
  MemoryReplayStore,
  type ReplayStore,
  type ReplayOutcome,
  type MemoryReplayStoreOptions,
} from './replay-store.js';
export {
  RevocationList,
  type RevocationSource,
  type RevocationStatus,
  type RevocationListPayload,
} from './revocation.js';
export { remoteRevocationList, type RemoteRevocationListOptions } from './remote-revocation-list.js';
export { type PrivateKeyInput } from './private-key.js';
