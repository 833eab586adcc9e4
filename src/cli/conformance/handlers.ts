import { a2aProfileHandler } from './a2a-profile.js';
import { bodyIntegrityHandler } from './body-integrity.js';
import { jwkSetHandler } from './jwk-set.js';
import { receiverEnvelopesHandler } from './receiver-envelopes.js';
import { a2aOperationResolutionHandler, requestSigningHandler } from './request-signing.js';
import { responseExtractionHandler } from './response-extraction.js';
import { transportErrorsHandler } from './transport-errors.js';
import type { FormatHandler } from './types.js';
import { urlCanonicalizationHandler } from './url-canonicalization.js';
import { webhookHmacHandler } from './webhook-hmac.js';
import { webhookPayloadsHandler } from './webhook-payloads.js';
import { webhookSigningHandler } from './webhook-signing.js';

/** Every format the runner knows, most specific first: the first handler that matches runs the file. */
export const FORMAT_HANDLERS: readonly FormatHandler[] = [
  a2aProfileHandler,
  transportErrorsHandler,
  webhookPayloadsHandler,
  responseExtractionHandler,
  receiverEnvelopesHandler,
  webhookHmacHandler,
  a2aOperationResolutionHandler,
  requestSigningHandler,
  bodyIntegrityHandler,
  webhookSigningHandler,
  urlCanonicalizationHandler,
  jwkSetHandler,
];
