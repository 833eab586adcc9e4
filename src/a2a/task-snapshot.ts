import { isJsonObject } from '../core/json-object.js';
import type { JsonObject } from '../core/types.js';
import { readStreamEnvelope } from '../core/unwrap-stream-envelope.js';

/** What one send result or stream event is, whichever wire it came over. */
export type A2AEvent =
  | { kind: 'task'; value: JsonObject }
  | { kind: 'statusUpdate'; value: JsonObject }
  | { kind: 'artifactUpdate'; value: JsonObject }
  | { kind: 'message'; value: JsonObject }
  | { kind: 'malformed'; reason: string };

const V03_KINDS: Record<string, Exclude<A2AEvent['kind'], 'malformed'>> = {
  task: 'task',
  message: 'message',
  'status-update': 'statusUpdate',
  'artifact-update': 'artifactUpdate',
};

/**
 * Classifies a send result or SSE event: a 1.0 `StreamResponse` envelope (unwrapped exactly
 * once by core; an envelope inside an envelope is malformed, a2a-response-extraction.md step 0),
 * a v0.3 object with `kind`, or a bare Task (`GetTask`, v0.3 servers without `kind`).
 */
export function classifyEvent(value: unknown): A2AEvent {
  if (!isJsonObject(value)) return { kind: 'malformed', reason: 'not a JSON object' };
  const envelope = readStreamEnvelope(value);
  if (envelope === null) return { kind: 'malformed', reason: 'nested stream envelope' };
  if (envelope.kind !== 'bare') return { kind: envelope.kind, value: envelope.value as JsonObject };
  const kind = value['kind'];
  if (typeof kind === 'string') {
    const mapped = V03_KINDS[kind];
    return mapped === undefined ? { kind: 'malformed', reason: 'unknown event kind' } : { kind: mapped, value };
  }
  if (typeof value['id'] === 'string' && isJsonObject(value['status'])) return { kind: 'task', value };
  return { kind: 'malformed', reason: 'neither a Task nor a stream event' };
}

/**
 * The task as the stream has shown it so far: a `task` event replaces it, a status update sets
 * its status, an artifact update adds or replaces (or, with `append`, extends) the artifact of
 * the same `artifactId` (a2a-guide.md, "Envelope semantics"). Events of another task are ignored.
 */
export class TaskSnapshot {
  id: string | undefined;
  contextId: string | undefined;
  status: JsonObject | undefined;
  artifacts: JsonObject[] = [];
  /** True once a v0.3 status update said `final: true`. */
  final = false;

  apply(event: A2AEvent): void {
    if (event.kind === 'malformed' || event.kind === 'message') return;
    const v = event.value;
    const taskId = event.kind === 'task' ? v['id'] : v['taskId'];
    if (typeof taskId === 'string') {
      if (this.id !== undefined && taskId !== this.id) return;
      this.id = taskId;
    }
    if (typeof v['contextId'] === 'string') this.contextId = v['contextId'];
    if (event.kind === 'task') {
      this.status = isJsonObject(v['status']) ? v['status'] : undefined;
      this.artifacts = Array.isArray(v['artifacts']) ? v['artifacts'].filter(isJsonObject) : [];
    } else if (event.kind === 'statusUpdate') {
      if (isJsonObject(v['status'])) this.status = v['status'];
      if (v['final'] === true) this.final = true;
    } else {
      this.addArtifact(v['artifact'], v['append'] === true);
    }
  }

  /** The accumulated task in the shape of a bare A2A Task. */
  toTask(): JsonObject {
    const task: JsonObject = {};
    if (this.id !== undefined) task['id'] = this.id;
    if (this.contextId !== undefined) task['contextId'] = this.contextId;
    if (this.status !== undefined) task['status'] = this.status;
    if (this.artifacts.length > 0) task['artifacts'] = this.artifacts;
    return task;
  }

  private addArtifact(artifact: unknown, append: boolean): void {
    if (!isJsonObject(artifact)) return;
    const parts = Array.isArray(artifact['parts']) ? artifact['parts'] : [];
    const index = this.artifacts.findIndex((a) => a['artifactId'] === artifact['artifactId']);
    const existing = index === -1 ? undefined : this.artifacts[index];
    if (existing !== undefined && append) {
      const before = Array.isArray(existing['parts']) ? existing['parts'] : [];
      this.artifacts[index] = { ...existing, parts: [...before, ...parts] };
    } else if (existing !== undefined) {
      this.artifacts[index] = { ...artifact, parts: [...parts] };
    } else {
      this.artifacts.push({ ...artifact, parts: [...parts] });
    }
  }
}
