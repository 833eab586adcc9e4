import { AdcpWireError } from '../core/wire-error.js';
import { setLongTimeout, type LongTimer } from './long-timer.js';

/**
 * Something that ends a piece of work, without being an `AbortSignal`: code that only needs to
 * hear of the end (an MCP request's own scope) listens here and costs no AbortController.
 */
export interface AbortSource {
  readonly aborted: boolean;
  readonly reason: unknown;
  /** Calls `listener` once when the source aborts (not when it already has); returns its removal. */
  onAbort(listener: (reason: unknown) => void): () => void;
}

/**
 * A deadline: aborts when `parent` does (with its reason) or after `timeoutMs` (with
 * `AdcpWireError('timeout')` naming `what`). Its `signal` is made on first read: on Node 20 each
 * AbortController costs tens of µs (`makeTransferable`), and a plain call that never sleeps nor
 * hands the signal to anything needs none. Call `dispose` when the work ends, so a long-lived
 * parent collects no listeners.
 */
export class Deadline implements AbortSource {
  readonly #parent: AbortSignal | undefined;
  readonly #onParentAbort: (() => void) | undefined;
  readonly #timer: LongTimer | undefined;
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #listeners: Set<(reason: unknown) => void> | undefined;

  constructor(timeoutMs: number, parent: AbortSignal | undefined, what: string) {
    this.#parent = parent;
    if (parent?.aborted === true) {
      this.#abort(parent.reason);
      return;
    }
    if (parent !== undefined) {
      this.#onParentAbort = () => this.#abort(parent.reason);
      parent.addEventListener('abort', this.#onParentAbort, { once: true });
    }
    this.#timer = setLongTimeout(
      () => this.#abort(new AdcpWireError('timeout', `${what} did not finish within ${timeoutMs} ms`)),
      timeoutMs,
    );
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** A signal that follows this deadline (made now if none was asked for yet). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.#aborted) return () => undefined;
    this.#listeners ??= new Set();
    this.#listeners.add(listener);
    return () => this.#listeners?.delete(listener);
  }

  /** Clears the timer and the parent's listener. */
  dispose(): void {
    this.#timer?.clear();
    if (this.#onParentAbort !== undefined) this.#parent?.removeEventListener('abort', this.#onParentAbort);
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener(reason);
  }
}

/** A `Deadline` for `timeoutMs` and the caller's `parent` signal (see `Deadline`). */
export function deadlineSignal(timeoutMs: number, parent: AbortSignal | undefined, what: string): Deadline {
  return new Deadline(timeoutMs, parent, what);
}
