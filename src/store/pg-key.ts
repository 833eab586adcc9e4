/** Any JS string as a `bytea` key, losslessly (NUL and lone surrogates included): its UTF-16LE code units. */
export function encodeKey(key: string): Buffer {
  return Buffer.from(key, 'utf16le');
}
