/** Longest `WWW-Authenticate` value read; a longer one is not parsed (it is seller-controlled). */
const MAX_HEADER_CHARS = 4096;
/** The request-signing taxonomy's codes (security.md, "Transport error taxonomy") all look like this. */
const CODE = /^request_[a-z0-9_]{1,80}$/;

/**
 * The `error` code of the `Signature` challenge in a `WWW-Authenticate` value (RFC 9110 section
 * 11.6.1 syntax; AdCP's `Signature error="request_signature_required"`), or `undefined` when
 * there is no such challenge or its code is not a request-signing code. Other challenges in the
 * same value (`Bearer realm="..."`) are skipped; nothing else of the value is returned.
 */
export function signatureChallengeError(header: string | null | undefined): string | undefined {
  if (header === null || header === undefined || header.length > MAX_HEADER_CHARS) return undefined;
  let scheme = '';
  for (const item of splitOutsideQuotes(header)) {
    const head = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(.*)$/s.exec(item);
    if (head === null) continue;
    const name = head[1] ?? '';
    const rest = head[2] ?? '';
    let param = item;
    if (rest === '') {
      scheme = name.toLowerCase(); // a scheme alone
      continue;
    }
    // `token SP rest` starts a challenge (a parameter has `=` right after its name).
    if (/^\s/.test(rest) && !/^\s*=/.test(rest)) {
      scheme = name.toLowerCase();
      param = rest.trim();
    }
    if (scheme !== 'signature') continue;
    const match = /^error\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([!#$%&'*+.^_`|~0-9A-Za-z-]+))$/is.exec(param.trim());
    if (match === null) continue;
    const code = (match[1] ?? match[2] ?? '').replace(/\\(.)/g, '$1');
    return CODE.test(code) ? code : undefined;
  }
  return undefined;
}

/** Comma-separated items of a header value, commas inside quoted strings kept; items trimmed, empty ones dropped. */
function splitOutsideQuotes(value: string): string[] {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (quoted && c === '\\' && i + 1 < value.length) {
      current += c + (value[i + 1] as string);
      i++;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ',' && !quoted) {
      items.push(current.trim());
      current = '';
      continue;
    }
    current += c;
  }
  items.push(current.trim());
  return items.filter((item) => item !== '');
}

/**
 * What a refused HTTP answer says about the request's signature: for a 401 carrying a Signature
 * challenge, a message suffix naming the code and the `signatureError` field of `AdcpWireError`.
 */
export function signatureRefusal(
  status: number,
  header: string | null | undefined,
): { note: string; fields: { signatureError?: string } } {
  const code = status === 401 ? signatureChallengeError(header) : undefined;
  return code === undefined
    ? { note: '', fields: {} }
    : { note: ` (request signature refused: ${code})`, fields: { signatureError: code } };
}
