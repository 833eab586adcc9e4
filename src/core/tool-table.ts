/**
 * What the spec says about each AdCP tool, in one table: whether it only reads (no
 * `idempotency_key`) and its MCP `execution.taskSupport`. The buyer's client and the seller's
 * server both read it. Core reads no files, so the table is kept by hand; a test
 * (`test/schemas/tool-table-manifest.test.ts`) holds the read-only column to the official schema
 * manifests of every bundled release.
 */

/** MCP `execution.taskSupport` of a tool (MCP Tasks). */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

export interface AdcpToolFacts {
  /**
   * Changes nothing on the seller, so a call carries no `idempotency_key` (security.md,
   * "Idempotency": keys are for mutating requests). The reads named in the mcp-guide's task
   * support table plus the polling and reconciliation tools.
   */
  readonly readOnly: boolean;
  /** The row of the mcp-guide table "Tool-Level Task Support", when the tool has one. */
  readonly taskSupport?: TaskSupport;
}

/** One row per AdCP tool the library knows by name. */
export const ADCP_TOOLS: Readonly<Record<string, AdcpToolFacts>> = {
  get_adcp_capabilities: { readOnly: true, taskSupport: 'forbidden' },
  get_products: { readOnly: true, taskSupport: 'optional' },
  list_creative_formats: { readOnly: true },
  list_creatives: { readOnly: true, taskSupport: 'forbidden' },
  list_authorized_properties: { readOnly: true },
  list_accounts: { readOnly: true },
  list_tasks: { readOnly: true },
  get_media_buys: { readOnly: true, taskSupport: 'forbidden' },
  get_media_buy_delivery: { readOnly: true, taskSupport: 'forbidden' },
  get_creative_delivery: { readOnly: true, taskSupport: 'forbidden' },
  get_signals: { readOnly: true, taskSupport: 'optional' },
  get_task_status: { readOnly: true, taskSupport: 'forbidden' },
  'tasks/get': { readOnly: true, taskSupport: 'forbidden' },
  'tasks/list': { readOnly: true },
  preview_creative: { readOnly: true, taskSupport: 'forbidden' },
  get_plan_audit_logs: { readOnly: true, taskSupport: 'forbidden' },
  get_brand_identity: { readOnly: true, taskSupport: 'forbidden' },
  get_rights: { readOnly: true, taskSupport: 'optional' },
  get_property_list: { readOnly: true },
  list_property_lists: { readOnly: true },
  get_content_standards: { readOnly: true },
  list_content_standards: { readOnly: true },
  // Reads by the schema manifest (`mutating: false`, no idempotency_key in their request schemas).
  get_account_financials: { readOnly: true },
  get_collection_list: { readOnly: true },
  get_creative_features: { readOnly: true },
  get_media_buy_artifacts: { readOnly: true },
  search_brands: { readOnly: true },
  si_get_offering: { readOnly: true },
  validate_content_delivery: { readOnly: true },
  validate_input: { readOnly: true },
  validate_property_delivery: { readOnly: true },
  create_media_buy: { readOnly: false, taskSupport: 'optional' },
  update_media_buy: { readOnly: false, taskSupport: 'optional' },
  build_creative: { readOnly: false, taskSupport: 'optional' },
  sync_creatives: { readOnly: false, taskSupport: 'optional' },
  activate_signal: { readOnly: false, taskSupport: 'optional' },
  sync_plans: { readOnly: false, taskSupport: 'optional' },
  check_governance: { readOnly: true, taskSupport: 'optional' }, // the manifest: mutating false
  report_plan_outcome: { readOnly: false, taskSupport: 'optional' },
  acquire_rights: { readOnly: false, taskSupport: 'optional' },
  update_rights: { readOnly: false, taskSupport: 'optional' },
};

/** The table row of `tool`, when it has one. */
export function factsOf(tool: string): AdcpToolFacts | undefined {
  return Object.hasOwn(ADCP_TOOLS, tool) ? ADCP_TOOLS[tool] : undefined;
}

/**
 * True for a tool that only reads: a read-only row of `ADCP_TOOLS`, or any `list_*` tool. Every
 * other name, unknown ones included, counts as mutating: a key sent to a read is harmless, a key
 * missing on a write is not.
 */
export function isReadOnlyTool(tool: string): boolean {
  return factsOf(tool)?.readOnly === true || tool.startsWith('list_');
}

/** A tool's `execution.taskSupport`: its own setting, else the table's, else `forbidden`. */
export function taskSupportFor(tool: string, declared?: TaskSupport): TaskSupport {
  return declared ?? factsOf(tool)?.taskSupport ?? 'forbidden';
}
