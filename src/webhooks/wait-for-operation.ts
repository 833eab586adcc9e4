import { EventEmitter } from 'node:events';
import { AdcpWireError } from '../core/wire-error.js';
import type { OperationRecord, OperationStore } from '../store/types.js';
import { FINAL_RANK } from '../store/operation-rules.js';
import { statusRank } from '../store/types.js';

/** Wakes local waiters when an operation advances; other processes are seen by polling. */
export class OperationSignals {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  notify(record: OperationRecord): void {
    this.#emitter.emit(record.operationId, record);
  }

  /**
   * Resolves with the operation once it is final (completed, failed, rejected, canceled). Polls
   * the store every `pollMs` (default 1 s) in case another process advanced it. Rejects with an
   * `AdcpWireError` of code `timeout` or `aborted`.
   */
  async wait(
    store: OperationStore,
    operationId: string,
    options: { timeoutMs?: number; signal?: AbortSignal; pollMs?: number } = {},
  ): Promise<OperationRecord> {
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    const pollMs = options.pollMs ?? 1000;
    for (;;) {
      if (options.signal?.aborted === true)
        throw new AdcpWireError('aborted', `waiting for operation ${operationId} was aborted`);
      const record = await store.get(operationId);
      if (record !== undefined && statusRank(record.status) >= FINAL_RANK) return record;
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new AdcpWireError('timeout', `operation ${operationId} not final after ${options.timeoutMs} ms`, {
          retryable: true,
        });
      await this.#sleep(operationId, Math.min(pollMs, remaining), options.signal);
    }
  }

  #sleep(operationId: string, ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#emitter.off(operationId, done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#emitter.on(operationId, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
