// Shared by the storyboard walks (serve-storyboards, kit-seller-storyboards): one recorded cause
// of failure, and the check that it is still true of the storyboards in ../shared.
import { isJsonObject } from '../../src/core/json-object.js';
import type { ComplianceRelease } from '../../src/storyboard/index.js';

const READS = '$context.media_buy_id';

/**
 * Why a step reading `$context.media_buy_id` fails: the storyboard's create step (`create`,
 * `phase/step`) declares no `context_outputs`, so nothing sets it. storyboard-schema.yaml fills the
 * context only from `context_outputs`, the root `context:` block and test-kit values; the
 * incumbent runner also copies `media_buy_id` from any create_media_buy answer (its
 * CONTEXT_EXTRACTORS), which the schema does not say.
 */
export function noCapture(create: string): string {
  return `${create} declares no context_outputs, so ${READS} is never set (storyboard-schema.yaml has no implicit capture)`;
}

/**
 * For each `storyboard/phase/step` whose recorded cause is a `noCapture`: what in the storyboard
 * says otherwise (the step does not read `$context.media_buy_id`, the create step is missing or
 * is not create_media_buy, a step captures `media_buy_id`, or the root `context:` sets it).
 */
export function noCaptureDisagreements(compliance: ComplianceRelease, known: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [key, why] of Object.entries(known)) {
    const create = /^(\S+\/\S+) declares no context_outputs, so /.exec(why)?.[1];
    if (create === undefined) continue;
    const [phaseId, stepId] = key.split('/').slice(-2);
    const storyboardId = key.split('/').slice(0, -2).join('/');
    const doc = compliance.storyboards.get(storyboardId)?.doc;
    if (doc === undefined) {
      out.push(`${key}: no storyboard ${storyboardId}`);
      continue;
    }
    const steps = new Map<string, Record<string, unknown>>();
    for (const phase of Array.isArray(doc['phases']) ? doc['phases'].filter(isJsonObject) : [])
      for (const step of Array.isArray(phase['steps']) ? phase['steps'].filter(isJsonObject) : [])
        steps.set(`${String(phase['id'])}/${String(step['id'])}`, step);
    if (!JSON.stringify(steps.get(`${phaseId}/${stepId}`)?.['sample_request'] ?? null).includes(READS))
      out.push(`${key}: the step does not read ${READS}`);
    const created = steps.get(create);
    if (created?.['task'] !== 'create_media_buy') out.push(`${key}: ${create} is not a create_media_buy step`);
    if (created?.['context_outputs'] !== undefined) out.push(`${key}: ${create} declares context_outputs`);
    for (const [id, step] of steps) {
      const outputs = Array.isArray(step['context_outputs']) ? step['context_outputs'].filter(isJsonObject) : [];
      if (outputs.some((o) => o['name'] === 'media_buy_id')) out.push(`${key}: ${id} captures media_buy_id`);
    }
    if (isJsonObject(doc['context']) && doc['context']['media_buy_id'] !== undefined)
      out.push(`${key}: the storyboard's context: sets media_buy_id`);
  }
  return out;
}
