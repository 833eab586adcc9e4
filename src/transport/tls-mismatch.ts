/**
 * The note for an `https://` URL whose port answers plain HTTP: TLS fails at once with OpenSSL's
 * "wrong version number" (`ERR_SSL_WRONG_VERSION_NUMBER` somewhere in the error's cause chain),
 * which says nothing to a user who typed `https://` for a local `adcp serve`. Empty otherwise.
 */
export function tlsMismatchNote(error: unknown, url: string): string {
  if (!url.toLowerCase().startsWith('https://')) return '';
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (
      code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
      (typeof message === 'string' && /wrong version number/i.test(message))
    )
      return `; the port answers plain HTTP, not TLS: try http://${url.slice('https://'.length)}`;
    const errors = (current as { errors?: unknown }).errors;
    current = Array.isArray(errors) && errors.length > 0 ? errors[0] : (current as { cause?: unknown }).cause;
  }
  return '';
}
