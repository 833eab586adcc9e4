/**
 * adcp-wire/schemas: the official AdCP schema bundles per release (read from a schema folder,
 * never bundled in the source), release selection, and validation with Ajv, compiled on first use.
 */
export { AdcpValidator, getValidator } from './adcp-validator.js';
export { loadSchemaBundle, SchemaBundle } from './schema-bundle.js';
export type { AsyncStatus, ToolSchemas } from './schema-bundle.js';
export { AdcpSchemaError } from './schema-error.js';
export type { SchemaErrorCode } from './schema-error.js';
export { findReleases, schemaCacheDir, schemaSearchPath } from './schema-dirs.js';
export type { ReleaseLocation } from './schema-dirs.js';
export { DEFAULT_RELEASE, OPT_IN_RELEASES, SUPPORTED_RELEASES, selectRelease } from './select-release.js';
export {
  compareBundleVersions,
  compareWireVersions,
  parseBundleVersion,
  parseWireVersion,
  toWireVersion,
} from './release.js';
export type { ReleaseVersion } from './release.js';
export { checkInputBounds, DEFAULT_MAX_DEPTH, DEFAULT_MAX_NODES } from './bounded-input.js';
export type { InputBounds } from './bounded-input.js';
export { describeIssues, MAX_ISSUES, pointerToField } from './validation-result.js';
export type { ValidationIssue, ValidationResult } from './validation-result.js';
export { projectSchema } from './tool-projection.js';
export type { ToolProjection } from './tool-projection.js';
export {
  MCP_PROJECTION_REVISION,
  toolDiscoverySchemas,
  toolInputSchema,
  toolOutputSchema,
} from './discovery-schemas.js';
export type {
  Adcp30,
  Adcp31,
  AdcpToolMap,
  AdcpToolName,
  CallArgs,
  CallData,
  CreateMediaBuyRequest,
  CreateMediaBuyResponse,
  GetProductsRequest,
  GetProductsResponse,
  Product,
  ToolArgs,
  ToolRequest,
  ToolResponse,
} from './tool-types.js';
