import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';

/**
 * The SDK client's JSON Schema validator, built on first use. The SDK `Client` builds an AJV
 * instance (formats included, some milliseconds) in its constructor for `callTool()`'s output
 * schemas; McpTransport sends `tools/call` and `tools/list` through `request()`, so a first call
 * never needs it. Anything in the SDK that does ask gets the same AJV validator as before.
 */
export function lazySchemaValidator(
  create: () => jsonSchemaValidator = () => new AjvJsonSchemaValidator(),
): jsonSchemaValidator {
  let built: jsonSchemaValidator | undefined;
  return {
    getValidator: (schema) => (built ??= create()).getValidator(schema),
  };
}
