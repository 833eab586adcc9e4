import { isPlainObject } from './plain-object.js';
import type { JsonObject } from './types.js';

/** Part content fields: A2A 1.0 `text`/`raw`/`url`/`data`, and the v0.3 FilePart's `file`. */
export const PART_CONTENT_FIELDS = ['text', 'raw', 'url', 'data', 'file'] as const;

/**
 * The `data` object of an A2A DataPart, found by field presence for both wires (1.0 `{ data }`,
 * v0.3 `{ kind: 'data', data }`), or `undefined`. A Part with more than one content field set
 * breaks the A2A 1.0 oneof (§4.1.6) and is treated as malformed: not a DataPart. `data` must be
 * a non-null, non-array object.
 */
export function dataPartData(part: unknown): JsonObject | undefined {
  if (!isPlainObject(part)) return undefined;
  const data = part['data'];
  if (!isPlainObject(data)) return undefined;
  for (const field of PART_CONTENT_FIELDS) {
    if (field !== 'data' && part[field] !== undefined && part[field] !== null) return undefined;
  }
  return data;
}

/** True for a well-formed DataPart (see `dataPartData`). */
export function isDataPart(part: unknown): boolean {
  return dataPartData(part) !== undefined;
}
