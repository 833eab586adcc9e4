import type { TaskSupport } from './types.js';

/** `execution.taskSupport` per AdCP tool, as the mcp-guide table "Tool-Level Task Support" sets it. */
export const ADCP_TASK_SUPPORT: Readonly<Record<string, TaskSupport>> = {
  get_products: 'optional',
  create_media_buy: 'optional',
  update_media_buy: 'optional',
  build_creative: 'optional',
  sync_creatives: 'optional',
  get_signals: 'optional',
  activate_signal: 'optional',
  sync_plans: 'optional',
  check_governance: 'optional',
  report_plan_outcome: 'optional',
  acquire_rights: 'optional',
  update_rights: 'optional',
  get_rights: 'optional',
  get_adcp_capabilities: 'forbidden',
  preview_creative: 'forbidden',
  list_creatives: 'forbidden',
  get_media_buys: 'forbidden',
  get_media_buy_delivery: 'forbidden',
  get_creative_delivery: 'forbidden',
  get_plan_audit_logs: 'forbidden',
  get_brand_identity: 'forbidden',
  get_task_status: 'forbidden',
  'tasks/get': 'forbidden',
};

/** The tool's own setting, else the guide's table, else `forbidden`. */
export function taskSupportFor(name: string, declared: TaskSupport | undefined): TaskSupport {
  return declared ?? ADCP_TASK_SUPPORT[name] ?? 'forbidden';
}
