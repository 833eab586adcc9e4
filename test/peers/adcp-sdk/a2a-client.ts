/**
 * The incumbent `@adcp/sdk` 6.11 buyer client over A2A (its `SingleAgentClient`, `protocol: 'a2a'`:
 * A2A 0.3 through `@a2a-js/sdk` 0.3, `{ skill, parameters }`, no profile activation), for interop
 * tests against our server at the URL `adcp serve` prints.
 */
import { SingleAgentClient } from '@adcp/sdk';

export interface IncumbentOutcome {
  status: string;
  success: boolean;
  data: unknown;
  error?: unknown;
}

/**
 * One call with no extra configuration. A native A2A `submitted` Task is followed with the
 * client's own `waitForCompletion`; AdCP Submitted work in a completed A2A Task (the v3 profile's
 * shape, `{ status: 'submitted', task_id }`) with the client's own `get_task_status` calls,
 * bounded (`maxPolls` x 100 ms).
 */
export async function incumbentA2ACall(
  agentUri: string,
  tool: string,
  params: unknown,
  maxPolls = 300,
): Promise<IncumbentOutcome> {
  const client = new SingleAgentClient({ id: 'seller', name: 'seller', agent_uri: agentUri, protocol: 'a2a' });
  let result = (await client.executeTask(tool, params)) as {
    status: string;
    success: boolean;
    data?: unknown;
    error?: unknown;
    submitted?: { waitForCompletion: (pollMs?: number) => Promise<unknown> };
  };
  if (result.status === 'submitted' && result.submitted !== undefined) {
    result = (await result.submitted.waitForCompletion(100)) as typeof result;
  }
  const handle = result.data as { status?: unknown; task_id?: unknown } | undefined;
  if (result.status === 'completed' && handle?.status === 'submitted' && typeof handle.task_id === 'string') {
    for (let i = 0; i < maxPolls; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const polled = (await client.executeTask('get_task_status', {
        task_id: handle.task_id,
        include_result: true,
      })) as {
        status: string;
        success: boolean;
        data?: { status?: string; result?: unknown };
        error?: unknown;
      };
      const state = polled.data?.status;
      if (state === 'completed' || state === 'failed' || state === 'canceled' || state === 'rejected') {
        return { status: state, success: polled.success, data: polled.data?.result, error: polled.error };
      }
    }
    return { status: 'timeout', success: false, data: handle };
  }
  return { status: result.status, success: result.success, data: result.data, error: result.error };
}
