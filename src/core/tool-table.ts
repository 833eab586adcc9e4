/**
 * What the spec says about each AdCP tool, in one place. Whether a tool is a read (its calls carry
 * no `idempotency_key`) or mutating (the key is sent, and required where its request schema
 * says so) comes from the official schema manifests of every shipped release, generated into
 * `./generated/manifest-tools.ts` by `npm run gen:types` (core reads no files). The buyer's
 * client and the seller's server both read it from here. The MCP `execution.taskSupport` column
 * is the mcp-guide's table "Tool-Level Task Support", which no manifest holds: kept by hand.
 */
import { MANIFEST_TOOLS, type ManifestToolKind } from './generated/manifest-tools.js';

export type { ManifestToolKind } from './generated/manifest-tools.js';

/** MCP `execution.taskSupport` of a tool (MCP Tasks). */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

export interface AdcpToolFacts {
  /**
   * Changes nothing on the seller, so a call carries no `idempotency_key` (security.md,
   * "Idempotency": keys are for mutating requests): `mutating: false` in every shipped manifest
   * that names the tool (see `isReadOnlyTool` for one release), or a task-polling method.
   */
  readonly readOnly: boolean;
  /** The row of the mcp-guide table "Tool-Level Task Support", when the tool has one. */
  readonly taskSupport?: TaskSupport;
}

/** The mcp-guide's "Tool-Level Task Support" table. */
const TASK_SUPPORT: Readonly<Record<string, TaskSupport>> = {
  get_adcp_capabilities: 'forbidden',
  get_products: 'optional',
  list_creatives: 'forbidden',
  get_media_buys: 'forbidden',
  get_media_buy_delivery: 'forbidden',
  get_creative_delivery: 'forbidden',
  get_signals: 'optional',
  get_task_status: 'forbidden',
  'tasks/get': 'forbidden',
  preview_creative: 'forbidden',
  get_plan_audit_logs: 'forbidden',
  get_brand_identity: 'forbidden',
  get_rights: 'optional',
  create_media_buy: 'optional',
  update_media_buy: 'optional',
  build_creative: 'optional',
  sync_creatives: 'optional',
  activate_signal: 'optional',
  sync_plans: 'optional',
  check_governance: 'optional',
  report_plan_outcome: 'optional',
  acquire_rights: 'optional',
  update_rights: 'optional',
};

/**
 * Reads no manifest names: the task-polling methods some agents list as tools (the task-status
 * tool's legacy names) and the 2.x `list_authorized_properties`.
 */
const READS_OUTSIDE_MANIFESTS = ['tasks/get', 'tasks/list', 'list_authorized_properties'] as const;

/**
 * The kind of `tool` in each shipped release whose manifest names it: the stable releases only,
 * unless `withBetas` (a pre-release, `3.2-beta.5`, is spoken only when named).
 */
function kindsOf(tool: string, withBetas = false): ManifestToolKind[] {
  const kinds: ManifestToolKind[] = [];
  for (const [release, tools] of Object.entries(MANIFEST_TOOLS)) {
    if ((withBetas || !release.includes('-')) && Object.hasOwn(tools, tool)) kinds.push(tools[tool]!);
  }
  return kinds;
}

/** The manifest kind of `tool` in `release`, when that shipped release names it. */
export function manifestKindOf(tool: string, release: string): ManifestToolKind | undefined {
  const tools = Object.hasOwn(MANIFEST_TOOLS, release) ? MANIFEST_TOOLS[release] : undefined;
  return tools !== undefined && Object.hasOwn(tools, tool) ? tools[tool] : undefined;
}

function buildTable(): Record<string, AdcpToolFacts> {
  const names = new Set<string>([
    ...Object.values(MANIFEST_TOOLS).flatMap((tools) => Object.keys(tools)),
    ...READS_OUTSIDE_MANIFESTS,
    ...Object.keys(TASK_SUPPORT),
  ]);
  const table: Record<string, AdcpToolFacts> = {};
  for (const name of [...names].sort()) {
    const kinds = kindsOf(name);
    const readOnly = kinds.length === 0 ? isOutsideRead(name) : kinds.every((kind) => kind === 'read');
    const support = Object.hasOwn(TASK_SUPPORT, name) ? TASK_SUPPORT[name] : undefined;
    table[name] = support === undefined ? { readOnly } : { readOnly, taskSupport: support };
  }
  return table;
}

function isOutsideRead(tool: string): boolean {
  return (READS_OUTSIDE_MANIFESTS as readonly string[]).includes(tool);
}

/**
 * One row per AdCP tool the library knows by name: every tool of a shipped manifest, the reads
 * outside them, and the task-support table's rows.
 */
export const ADCP_TOOLS: Readonly<Record<string, AdcpToolFacts>> = buildTable();

/** The table row of `tool`, when it has one. */
export function factsOf(tool: string): AdcpToolFacts | undefined {
  return Object.hasOwn(ADCP_TOOLS, tool) ? ADCP_TOOLS[tool] : undefined;
}

/**
 * True for a tool that only reads, so a call gets no `idempotency_key`: `mutating: false` in the
 * manifest of `release` when that release names it, else in every stable shipped manifest that
 * names it; a task-polling method; or any `list_*` tool no manifest names. Every other name, unknown
 * ones included, counts as mutating: a key sent to a read is harmless, a key missing on a write
 * is not.
 */
export function isReadOnlyTool(tool: string, release?: string): boolean {
  const inRelease = release === undefined ? undefined : manifestKindOf(tool, release);
  if (inRelease !== undefined) return inRelease === 'read';
  const kinds = kindsOf(tool);
  if (kinds.length > 0) return kinds.every((kind) => kind === 'read');
  return isOutsideRead(tool) || tool.startsWith('list_');
}

/**
 * True when a call of `tool` must carry `idempotency_key` (security.md, "Idempotency": required on
 * every state-mutating request): in one of `releases`, the manifest calls it mutating and its
 * request schema requires the key. The manifest also calls some tools mutating whose schema
 * leaves the key out (`si_terminate_session`, `comply_test_controller`): the schema decides
 * (docs/decisions/0041). A release this library does not ship counts as requiring the key for
 * every tool some shipped release requires it for; a tool no release names requires none.
 */
export function requiresIdempotencyKey(tool: string, releases: readonly string[]): boolean {
  return releases.some((release) =>
    Object.hasOwn(MANIFEST_TOOLS, release)
      ? manifestKindOf(tool, release) === 'keyed'
      : kindsOf(tool, true).includes('keyed'),
  );
}

/** A tool's `execution.taskSupport`: its own setting, else the table's, else `forbidden`. */
export function taskSupportFor(tool: string, declared?: TaskSupport): TaskSupport {
  return declared ?? factsOf(tool)?.taskSupport ?? 'forbidden';
}
