import type { ValidationIssue } from '../schemas/validation-result.js';
import { describeIssues } from '../schemas/validation-result.js';

/** Arguments that fail the tool's request schema: refused before anything is sent. */
export class AdcpValidationError extends TypeError {
  override readonly name = 'AdcpValidationError';
  readonly code = 'invalid_request';
  readonly tool: string;
  /** The release whose schema refused them (`3.1`). */
  readonly release: string;
  readonly issues: ValidationIssue[];

  constructor(tool: string, release: string, issues: ValidationIssue[]) {
    super(
      `AdcpClient.call(${tool}): arguments do not match the AdCP ${release} request schema: ${describeIssues(issues)}`,
    );
    this.tool = tool;
    this.release = release;
    this.issues = issues;
  }
}
