import type { JsonObject } from '../core/types.js';
import { ComplianceError, type ComplianceRelease, type Storyboard } from './load.js';

/** A storyboard chosen for the run, and why. */
export interface Selected {
  storyboard: Storyboard;
  because: string;
  /** Set when the agent's declaration rules the storyboard out before any step (graded, not run). */
  preGraded?: { verdict: 'not_applicable' | 'failed'; reason: 'not_applicable' | 'requirement_unmet'; detail: string };
}

const kebab = (s: string) => s.replace(/_/g, '-');

/**
 * The storyboards a capability-driven run grades (get-adcp-capabilities.md, `supported_protocols`
 * and `specialisms`): every universal storyboard (each gated by its own `requires_capability`,
 * `requires` and tools when it runs); the baseline `protocols/{protocol}/` of each supported
 * protocol (snake_case to kebab-case) with its `requires_scenarios`; the `specialisms/{id}/` of
 * each claimed specialism with its scenarios. A protocol or specialism the agent does not claim
 * is reported not applicable, citing its declaration; a specialism claimed without its parent
 * protocol is failed ("The runner rejects a specialism whose parent protocol is missing").
 * With `ids`, exactly those storyboards (and the scenarios they require) run.
 */
export function selectStoryboards(
  release: ComplianceRelease,
  capabilities: JsonObject | undefined,
  options: { ids?: readonly string[] } = {},
): Selected[] {
  const out = new Map<string, Selected>();
  const add = (storyboard: Storyboard, because: string, preGraded?: Selected['preGraded']) => {
    if (out.has(storyboard.id)) return;
    out.set(storyboard.id, preGraded === undefined ? { storyboard, because } : { storyboard, because, preGraded });
    if (preGraded !== undefined) return;
    const required = storyboard.doc['requires_scenarios'];
    for (const id of Array.isArray(required) ? required : []) {
      const scenario = typeof id === 'string' ? release.storyboards.get(id) : undefined;
      if (scenario !== undefined) add(scenario, `required by ${storyboard.id}`);
      else {
        out.set(`${storyboard.id}::${String(id)}`, {
          storyboard: { id: String(id), title: String(id), file: storyboard.file, kind: 'scenario', doc: {} },
          because: `required by ${storyboard.id}`,
          preGraded: {
            verdict: 'not_applicable',
            reason: 'not_applicable',
            detail: `unresolved_scenario_reference: requires_scenarios reference "${String(id)}" did not resolve against the source tree`,
          },
        });
      }
    }
  };
  if (options.ids !== undefined && options.ids.length > 0) {
    for (const id of options.ids) {
      const storyboard =
        release.storyboards.get(id) ??
        [...release.storyboards.values()].find((s) => s.file === id || s.file.replace(/\.yaml$/, '') === id);
      if (storyboard === undefined) {
        const near = [...release.storyboards.keys()].filter((k) => k.includes(id) || id.includes(k)).slice(0, 5);
        throw new ComplianceError(
          `no storyboard ${id} in compliance ${release.version}${near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : ''}`,
        );
      }
      add(storyboard, 'asked for by id');
    }
    return [...out.values()];
  }
  const all = [...release.storyboards.values()];
  for (const storyboard of all.filter((s) => s.kind === 'universal')) add(storyboard, 'universal');
  const protocols = stringList(capabilities?.['supported_protocols']);
  const specialisms = stringList(capabilities?.['specialisms']);
  const declared = `supported_protocols: [${protocols.join(', ')}]`;
  for (const storyboard of all.filter((s) => s.kind === 'protocol')) {
    const claimed = protocols.find((p) => kebab(p) === storyboard.folder);
    if (claimed !== undefined) add(storyboard, `supported_protocols includes ${claimed}`);
    else
      add(storyboard, 'protocol baseline', {
        verdict: 'not_applicable',
        reason: 'not_applicable',
        detail: `the agent does not claim ${storyboard.folder} (${declared})`,
      });
  }
  const parents = new Map<string, string>();
  const index = release.index['specialisms'];
  for (const entry of Array.isArray(index) ? index : []) {
    if (
      entry !== null &&
      typeof entry === 'object' &&
      typeof entry.id === 'string' &&
      typeof entry.protocol === 'string'
    ) {
      parents.set(entry.id, entry.protocol);
    }
  }
  for (const storyboard of all.filter((s) => s.kind === 'specialism')) {
    const id = storyboard.folder ?? '';
    if (!specialisms.includes(id)) {
      add(storyboard, 'specialism', {
        verdict: 'not_applicable',
        reason: 'not_applicable',
        detail: `the agent does not claim the specialism ${id} (specialisms: [${specialisms.join(', ')}])`,
      });
      continue;
    }
    const parent = parents.get(id);
    if (parent !== undefined && !protocols.some((p) => kebab(p) === parent)) {
      add(storyboard, `specialisms includes ${id}`, {
        verdict: 'failed',
        reason: 'requirement_unmet',
        detail: `the agent claims ${id} without its protocol ${parent} (${declared}); get-adcp-capabilities.md: "Every specialism rolls up to one protocol in supported_protocols ... The runner rejects a specialism whose parent protocol is missing."`,
      });
      continue;
    }
    add(storyboard, `specialisms includes ${id}`);
  }
  return [...out.values()];
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
