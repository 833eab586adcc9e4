/** Where a request went, for error messages (the tool or A2A method, and the URL) and its signal. */
export interface WireContext {
  url: string;
  tool?: string;
  signal?: AbortSignal | undefined;
}

/** "tool at url" for error messages; never contains seller text. */
export function describe(ctx: WireContext): string {
  return ctx.tool === undefined ? ctx.url : `${ctx.tool} at ${ctx.url}`;
}
