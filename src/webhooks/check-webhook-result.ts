import type { ResponseCheck } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import { getValidator } from '../schemas/adcp-validator.js';
import { parseWireVersion } from '../schemas/release.js';

/**
 * Checks a webhook's `result` against the schema of its task and status (mcp-guide, "Webhook
 * result schemas": `[task]-async-response-working.json`, ...; the response schema for
 * `completed`/`failed`, `core/error.json` for an `adcp_error`). Uses the payload's
 * `adcp_version` when it is a release we speak, else `release`. `undefined` when no schema
 * applies (unknown task type, a status without a schema, no result).
 */
export function checkWebhookResult(
  payload: JsonObject,
  taskType: string | undefined,
  status: string | null,
  data: JsonObject | null,
  release: string,
): ResponseCheck | undefined {
  if (taskType === undefined || status === null || data === null) return undefined;
  const echoed = payload['adcp_version'];
  let validator;
  try {
    validator = getValidator(typeof echoed === 'string' && parseWireVersion(echoed) !== undefined ? echoed : release);
  } catch {
    validator = getValidator(release);
  }
  const error = data['adcp_error'];
  const checked =
    error !== null && typeof error === 'object'
      ? validator.schema('core/error.json', error)
      : validator.result(taskType, status, data);
  if (checked.schema === undefined) return undefined;
  return {
    ok: checked.ok,
    release: validator.release,
    schema: checked.schema,
    issues: checked.ok ? [] : checked.issues,
  };
}
