// The seller behaviour the wire tests share, keyed by skill/input.
import type { Script, ScriptStep } from './scenario.js';

/** A gate a test opens to let a waiting task finish. */
export function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

export const PRODUCTS = { status: 'completed', products: [{ product_id: 'p1', name: 'CTV premium' }], total: 1 };

/** `scenario` in the input picks the behaviour. */
export function sellerScript(gates: Map<string, { wait: Promise<void> }> = new Map()): Script {
  return (skill, input, call) => {
    const scenario = typeof input['scenario'] === 'string' ? input['scenario'] : 'completed';
    const steps: Record<string, () => ScriptStep[]> = {
      completed: () => [
        { state: 'working', message: [{ text: 'Searching' }, { data: { percentage: 40, current_step: 'searching' } }] },
        {
          artifact: {
            id: 'result',
            parts: [
              { text: 'Found 1 product' },
              { data: { progress: 25 } },
              { data: { ...PRODUCTS, context: input['context'] ?? {} } },
            ],
          },
        },
        { state: 'completed' },
      ],
      gated: () => [
        { state: 'working', message: [{ text: 'Waiting for approval' }, { data: { percentage: 10 } }] },
        { wait: gates.get(String(input['gate']))?.wait ?? Promise.resolve() },
        { artifact: { id: 'result', parts: [{ data: { status: 'completed', media_buy_id: 'mb_1' } }] } },
        { state: 'completed' },
      ],
      failed: () => [
        {
          artifact: {
            id: 'error',
            parts: [
              { text: 'Rate limited\r\nretry later' },
              {
                data: {
                  adcp_error: {
                    code: 'RATE_LIMITED',
                    message: 'Too many requests',
                    retry_after: 5,
                    recovery: 'transient',
                  },
                },
              },
            ],
          },
        },
        { state: 'failed' },
      ],
      rejected: () => [
        {
          artifact: {
            id: 'error',
            parts: [
              {
                data: {
                  adcp_error: { code: 'POLICY_VIOLATION', message: 'Category not allowed', recovery: 'correctable' },
                },
              },
            ],
          },
        },
        { state: 'rejected' },
      ],
      'input-required': () => [
        {
          state: 'input-required',
          message: [{ text: 'Budget needs approval' }, { data: { reason: 'BUDGET_EXCEEDS_LIMIT' } }],
        },
      ],
      'auth-required': () => [
        {
          state: 'auth-required',
          message: [
            { text: 'Log in' },
            { data: { auth_scheme: 'oauth2', challenge_url: String(input['challenge_url']), scopes: ['buy'] } },
          ],
        },
      ],
      wrapper: () => [
        { artifact: { id: 'result', parts: [{ data: { response: { products: [] } } }] } },
        { state: 'completed' },
      ],
      submitted: () => [
        {
          artifact: {
            id: 'result',
            parts: [{ data: { status: 'submitted', task_id: 'adcp_task_7', message: 'Queued for review' } }],
          },
        },
        { state: 'completed' },
      ],
      'file-parts': () => [
        {
          artifact: {
            id: 'result',
            parts: [
              { data: { status: 'completed', creative_id: 'cr_1' } },
              { url: 'https://evil.example/x.mp4', filename: 'x.mp4', mediaType: 'video/mp4' },
              { url: 'javascript:alert(1)' },
            ],
          },
        },
        { state: 'completed' },
      ],
      approved: () => [
        {
          artifact: {
            id: 'result',
            parts: [{ data: { status: 'completed', media_buy_id: 'mb_2', task_id_seen: call.taskId } }],
          },
        },
        { state: 'completed' },
      ],
      'echo-context': () => [
        { artifact: { id: 'result', parts: [{ data: { status: 'completed', context_id_seen: call.contextId } }] } },
        { state: 'completed' },
      ],
    };
    void skill;
    return (steps[scenario] ?? steps['completed']!)();
  };
}
