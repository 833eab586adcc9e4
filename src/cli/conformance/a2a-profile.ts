import type { A2AProfileViolation } from '../../core/a2a-profile.js';
import { checkProfileCard } from '../../core/a2a-profile-card.js';
import { buildInvocationMessage, checkProfileRequest } from '../../core/a2a-profile-invocation.js';
import { checkProfileSendResponse } from '../../core/a2a-profile-response.js';
import { isPlainObject } from '../../core/plain-object.js';
import { expectEqual, guard, show, vectorId, type JsonRecord } from './check.js';

const isRecord = (value: unknown): value is JsonRecord => isPlainObject(value);
import type { FormatHandler, VectorResult } from './types.js';

/**
 * The AdCP A2A Profile Extension v3 vectors (`advertisement_vectors`, `invocation_vectors`,
 * `response_vectors`), each through the function the server or client uses: the card check of
 * discovery, the request check of the A2A endpoint (and, for valid invocations, the client's
 * message builder must produce the same DataPart), the SendMessage answer check of the client.
 * A vector with `valid: false` must fail with its `expected_error` as the code.
 */
export const a2aProfileHandler: FormatHandler = {
  format: 'A2A profile extension v3',
  matches: (doc) =>
    isRecord(doc) &&
    typeof doc['extension_uri'] === 'string' &&
    ['advertisement_vectors', 'invocation_vectors', 'response_vectors'].some((k) => Array.isArray(doc[k])),
  async run(doc) {
    const out: VectorResult[] = [];
    const groups: [string, (v: JsonRecord, id: string) => VectorResult][] = [
      ['advertisement_vectors', (v, id) => verdict(id, v, checkProfileCard(v['agent_card']))],
      ['invocation_vectors', runInvocation],
      ['response_vectors', runResponse],
    ];
    for (const [key, run] of groups) {
      const list = isRecord(doc) && Array.isArray(doc[key]) ? (doc[key] as unknown[]) : [];
      list.forEach((vector, i) => {
        const id = isRecord(vector) ? vectorId(vector, i) : `#${i + 1}`;
        out.push(isRecord(vector) ? guard(id, () => run(vector, id)) : { id, ok: false, reason: 'not an object' });
      });
    }
    return out;
  },
};

function verdict(id: string, v: JsonRecord, result: { ok: true } | A2AProfileViolation): VectorResult {
  if (v['valid'] === true) {
    return result.ok
      ? { id, ok: true }
      : { id, ok: false, reason: `expected valid, got ${result.code}: ${show(result.message)}` };
  }
  if (result.ok) return { id, ok: false, reason: `expected ${show(v['expected_error'])}, got valid` };
  return expectEqual(id, 'error code', result.code, v['expected_error']);
}

function runInvocation(v: JsonRecord, id: string): VectorResult {
  const headers = isRecord(v['headers']) ? (v['headers'] as Record<string, string>) : {};
  const parsed = checkProfileRequest(headers, v['message'], { required: true });
  const first = verdict(id, v, parsed);
  if (!first.ok || !parsed.ok) return first;
  // The client builds the same authoritative DataPart for this skill and input.
  const built = buildInvocationMessage(parsed.skill, parsed.input, { messageId: parsed.messageId, wire: '1.0' });
  const sent = (v['message'] as JsonRecord)['parts'] as unknown[];
  const dataPart = sent.find((p) => isRecord(p) && 'data' in p);
  return expectEqual(id, 'built DataPart', (built['parts'] as unknown[]).at(-1), dataPart);
}

function runResponse(v: JsonRecord, id: string): VectorResult {
  const result = checkProfileSendResponse(v['response']);
  const first = verdict(id, v, result);
  if (!first.ok || !result.ok || v['expected_adcp_task_id'] === undefined) return first;
  const handle =
    result.adcpTaskId ?? (isRecord(dataOf(result.task)) ? (dataOf(result.task) as JsonRecord)['task_id'] : undefined);
  return expectEqual(id, 'AdCP task_id', handle, v['expected_adcp_task_id']);
}

function dataOf(task: JsonRecord): unknown {
  const artifact = Array.isArray(task['artifacts']) ? (task['artifacts'][0] as unknown) : undefined;
  const parts = isRecord(artifact) && Array.isArray(artifact['parts']) ? (artifact['parts'] as unknown[]) : [];
  return [...parts]
    .reverse()
    .map((p) => (isRecord(p) ? p['data'] : undefined))
    .find(isRecord);
}
