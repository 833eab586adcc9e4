/**
 * Reads a fetched key document (JWKS, revocation list) up to `maxBytes`, refusing as soon as the
 * declared length or the bytes read pass the cap, so a 50 MB answer costs at most `maxBytes`.
 */
export async function readCappedResponse(response: Response, maxBytes: number): Promise<Buffer | 'too_large'> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) return 'too_large';
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return 'too_large';
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}
