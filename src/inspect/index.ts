/**
 * `adcp inspect`: a local web page to explore, call and debug AdCP agents (docs/inspect.md). Its
 * own room: the `adcp` command loads it on demand, and nothing that imports the library does.
 */
export { startInspector, PAGE_DIR, type InspectServerOptions, type RunningInspector } from './server.js';
export {
  Inspector,
  type AgentConfig,
  type AgentView,
  type CallView,
  type InspectorOptions,
  type StoryboardRunRequest,
} from './inspector.js';
export { defaultHistoryPath, History, type HistoryEntry, type HistoryExport } from './history.js';
export type { CheckResult } from './checks.js';
export type { DiscoveryView } from './discovery-view.js';
