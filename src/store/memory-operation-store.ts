import type { OperationFilter, OperationRecord, OperationStore, OperationUpdate } from './types.js';
import { isForwardUpdate } from './operation-rules.js';

type CreateInput = Omit<OperationRecord, 'createdAt' | 'updatedAt'> & { now?: number };
type AdvanceInput = OperationUpdate & { now?: number; createIfMissing?: { agent: string; taskType: string } };

/** An in-process `OperationStore` for tests; records are copied in and out, never shared. */
export class MemoryOperationStore implements OperationStore {
  readonly #records = new Map<string, OperationRecord>();

  async create(input: CreateInput): Promise<OperationRecord> {
    const existing = this.#records.get(input.operationId);
    if (existing !== undefined) return copy(existing);
    const now = input.now ?? Date.now();
    const { now: _now, ...fields } = input;
    const record: OperationRecord = { ...fields, result: clone(fields.result), createdAt: now, updatedAt: now };
    if (record.result === undefined) delete record.result;
    this.#records.set(record.operationId, record);
    return copy(record);
  }

  async advance(
    operationId: string,
    input: AdvanceInput,
  ): Promise<{ applied: boolean; record: OperationRecord | undefined }> {
    const now = input.now ?? Date.now();
    const current = this.#records.get(operationId);
    if (current === undefined) {
      if (input.createIfMissing === undefined) return { applied: false, record: undefined };
      const record = await this.create({
        operationId,
        agent: input.createIfMissing.agent,
        taskType: input.createIfMissing.taskType,
        status: input.status,
        statusAt: input.statusAt,
        ...(input.taskId !== undefined ? { taskId: input.taskId } : {}),
        ...(input.result !== undefined ? { result: input.result } : {}),
        now,
      });
      return { applied: true, record };
    }
    if (!isForwardUpdate(current, input)) return { applied: false, record: copy(current) };
    current.status = input.status;
    current.statusAt = input.statusAt;
    current.updatedAt = now;
    if (input.taskId !== undefined) current.taskId = input.taskId;
    if (input.result !== undefined) current.result = clone(input.result);
    return { applied: true, record: copy(current) };
  }

  async get(operationId: string): Promise<OperationRecord | undefined> {
    const record = this.#records.get(operationId);
    return record === undefined ? undefined : copy(record);
  }

  async list(filter: OperationFilter = {}): Promise<OperationRecord[]> {
    const out: OperationRecord[] = [];
    const sorted = [...this.#records.values()].sort(
      (a, b) =>
        a.createdAt - b.createdAt || (a.operationId < b.operationId ? -1 : a.operationId > b.operationId ? 1 : 0),
    );
    for (const record of sorted) {
      if (filter.agent !== undefined && record.agent !== filter.agent) continue;
      if (filter.taskType !== undefined && record.taskType !== filter.taskType) continue;
      if (filter.statuses !== undefined && !filter.statuses.includes(record.status)) continue;
      out.push(copy(record));
      if (filter.limit !== undefined && out.length >= filter.limit) break;
    }
    return out;
  }

  async close(): Promise<void> {
    this.#records.clear();
  }
}

function clone(value: unknown): unknown {
  return value === undefined ? undefined : structuredClone(value);
}

function copy(record: OperationRecord): OperationRecord {
  const out = { ...record };
  if (record.result !== undefined) out.result = clone(record.result);
  return out;
}
