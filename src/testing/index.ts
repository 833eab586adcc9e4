/**
 * `adcp-wire/testing`: what only tests and conformance runs need, kept off the production
 * entries: the official vector runners (request signing, webhook signing) and the
 * `comply_test_controller` helpers (the tool, its scenarios and errors, a seeded product).
 */
export { runRequestSigningVector, type RequestSigningVector } from '../signing/run-request-signing-vector.js';
export { runWebhookSigningVector, type WebhookSigningVector } from '../webhooks/run-signing-vector.js';
export { ControllerError, CONTROLLER_SCENARIOS, createTestControllerTool } from '../server/tools/test-controller.js';
export type {
  ControllerErrorCode,
  ControllerScenario,
  TestControllerOptions,
} from '../server/tools/test-controller.js';
export { seededProduct } from '../kit/controller.js';
