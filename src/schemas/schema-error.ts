/** What went wrong finding or loading schemas. */
export type SchemaErrorCode =
  'unknown_version' | 'unsupported_version' | 'unknown_tool' | 'unresolvable_ref' | 'unreadable_schema';

/** A release, tool or schema that cannot be found or loaded; `code` says which. */
export class AdcpSchemaError extends Error {
  override readonly name = 'AdcpSchemaError';
  readonly code: SchemaErrorCode;

  constructor(code: SchemaErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
