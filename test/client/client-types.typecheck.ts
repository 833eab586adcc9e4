// Type tests of AdcpClient (issue 32 item 14), compiled by `npm run typecheck` and never run:
// every `@ts-expect-error` line must be an error, or tsc fails on it ("unused directive"), and
// every other line must compile.
import { AdcpClient } from '../../src/client/index.js';
import type { CreateMediaBuyResponse, GetProductsResponse } from '../../src/schemas/tool-types.js';
import type { TaskResult } from '../../src/core/task-result.js';

declare const client: AdcpClient;

export async function typedWait(): Promise<void> {
  const first = await client.call('create_media_buy', { start_time: 'asap' });
  const done = await client.waitFor(first);
  if (done.status === 'completed' && done.data !== undefined) {
    // waitFor keeps the tool's type: a completed create_media_buy holds its success arm.
    const id: string = done.data.media_buy_id;
    const revision: number = done.data.revision;
    // @ts-expect-error: the error arm (`errors` required) is never a completed result's data
    const errors: unknown[] = done.data.errors;
    void [id, revision, errors];
  }
  if (done.status === 'failed') {
    // ResultError says what the agent said.
    const message: string | undefined = done.error.message;
    void message;
  }
  // A result held untyped stays untyped.
  const loose = await client.waitFor('op-1');
  if (loose.status === 'completed') void loose.data?.['anything'];
}

export async function toolNames(tool: string): Promise<void> {
  const products = await client.call('get_products', { buying_mode: 'brief', brief: 'CTV' });
  if (products.status === 'completed') {
    const list: GetProductsResponse['products'] = products.data?.products;
    void list;
  }
  // @ts-expect-error: a misspelt field of a known tool does not fall through to the untyped overload
  await client.call('get_products', { buying_mode: 'brief', breif: 'CTV' });
  // @ts-expect-error: a misspelt AdCP tool name does not compile
  await client.call('get_prodcuts', { buying_mode: 'brief' });
  // @ts-expect-error: nor does another literal (hold another agent's own tool name in a string)
  await client.call('my_own_tool', {});
  // A name in a `string` is any agent's tool, untyped.
  const any = await client.call(tool, { anything: 1 });
  void any;
}

/** A completed create_media_buy holds the schema's success arm: not the submitted arm either. */
type Completed = NonNullable<Extract<TaskResult<CreateMediaBuyResponse>, { status: 'completed' }>['data']>;
export const submittedArmGone: [Extract<Completed, { status: 'submitted' }>] extends [never] ? true : false = true;
export const errorArmGone: [Extract<Completed, { errors: unknown[] }>] extends [never] ? true : false = true;

/** A narrowed submitted result still waits to the tool's type (the docs' `buy = await waitFor(buy)`). */
export async function narrowed(): Promise<string | undefined> {
  let buy = await client.call('create_media_buy', { start_time: 'asap' });
  if (buy.status === 'submitted' || buy.status === 'working') buy = await client.waitFor(buy);
  return buy.status === 'completed' ? buy.data?.media_buy_id : undefined;
}
