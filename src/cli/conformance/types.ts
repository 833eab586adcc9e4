/** One vector's verdict. */
export interface VectorResult {
  id: string;
  ok: boolean;
  /** Why it failed (expected vs actual), when it failed. */
  reason?: string;
}

export interface HandlerContext {
  /** Absolute path of the file being run. */
  file: string;
  /** Every JWK found in JWK-set files under the vectors folder, nearest folder first. */
  jwksNear(file: string): unknown[];
}

/**
 * A vector format the runner understands, recognised by the fields its documents carry (never by
 * file name or vector id). `run` may throw `HandlerUnavailable` when a module it needs is absent.
 */
export interface FormatHandler {
  /** Short human name printed beside the file ("transport errors"). */
  format: string;
  matches(doc: unknown): boolean;
  /** A support file (a key set) is recognised but holds no vectors to run. */
  support?: boolean;
  run(doc: unknown, context: HandlerContext): Promise<VectorResult[]>;
}

/** Thrown by a handler whose implementation module is not installed or not built yet. */
export class HandlerUnavailable extends Error {
  override readonly name = 'HandlerUnavailable';
}
