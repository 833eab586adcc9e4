/**
 * `adcp-wire/storyboard`: grade an AdCP agent with the official compliance storyboards of a
 * release, every verdict explained (request, answer, JSON pointer, expected, actual, spec text).
 */
export {
  loadComplianceDir,
  loadComplianceFiles,
  loadComplianceRelease,
  ComplianceError,
  type ComplianceRelease,
  type ComplianceFiles,
  type Storyboard,
} from './load.js';
export { selectStoryboards, type Selected } from './select.js';
export { runStoryboards, releaseOf, type RunStoryboardsOptions, type RunEvent } from './run.js';
export { WebhookReceiver, type Delivery } from './webhook-receiver.js';
export { renderSummary, renderJunit, renderHtml, progressLine, explainStep } from './report.js';
export type {
  RunReport,
  StoryboardOutcome,
  StepOutcome,
  ValidationOutcome,
  Verdict,
  SkipReason,
  StepCounts,
  SpecSource,
} from './types.js';
