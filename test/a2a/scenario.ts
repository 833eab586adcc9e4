// A wire-neutral script of what an AdCP seller does for one skill call, played by the test
// servers of both SDK majors (sdk-servers.ts).

export type ScriptPart =
  { text: string } | { data: Record<string, unknown> } | { url: string; filename?: string; mediaType?: string };

export type ScriptStep =
  | { state: ScriptState; message?: ScriptPart[] }
  | { artifact: { id: string; parts: ScriptPart[]; append?: boolean; lastChunk?: boolean } }
  | { wait: Promise<void> };

export type ScriptState =
  'submitted' | 'working' | 'input-required' | 'auth-required' | 'completed' | 'failed' | 'canceled' | 'rejected';

/** Decides the steps for one call from the skill, its input and the A2A context id. */
export type Script = (
  skill: string,
  input: Record<string, unknown>,
  call: { contextId: string; taskId: string },
) => ScriptStep[];

/** The `{ skill, input }` of a message's DataPart, whatever the wire. */
export function invocationOf(parts: unknown[]): { skill: string; input: Record<string, unknown> } {
  for (const part of parts) {
    const p = part as Record<string, unknown>;
    const content = p['content'] as { $case?: string; value?: unknown } | undefined;
    const data = (content?.$case === 'data' ? content.value : p['data']) as Record<string, unknown> | undefined;
    if (data !== undefined && typeof data['skill'] === 'string') {
      return { skill: data['skill'], input: (data['input'] as Record<string, unknown>) ?? {} };
    }
  }
  return { skill: '', input: {} };
}

export const FINAL_STATES: readonly ScriptState[] = [
  'completed',
  'failed',
  'canceled',
  'rejected',
  'input-required',
  'auth-required',
];
