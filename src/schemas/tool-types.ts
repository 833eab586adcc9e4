import type { JsonObject } from '../core/types.js';
import type * as Adcp30 from './generated/adcp-3.0.js';
import type * as Adcp31 from './generated/adcp-3.1.js';
import type { AdcpTools31 } from './generated/adcp-3.1.js';

/** Every generated type of a release, by schema file name (`Adcp31.Product`, `Adcp30.CreateMediaBuyRequest`). */
export type { Adcp30, Adcp31 };
export type {
  CreateMediaBuyRequest,
  CreateMediaBuyResponse,
  GetProductsRequest,
  GetProductsResponse,
  Product,
} from './generated/adcp-3.1.js';

/**
 * Every AdCP tool of the default release (3.1) with its request and response types, generated from
 * the official schemas (`npm run gen:types`). Types only: nothing here exists at run time.
 */
export type AdcpToolMap = AdcpTools31;
export type AdcpToolName = keyof AdcpToolMap;
export type ToolRequest<N extends AdcpToolName> = AdcpToolMap[N]['request'];
export type ToolResponse<N extends AdcpToolName> = AdcpToolMap[N]['response'];

/**
 * What `AdcpClient.call(name, args)` takes: the tool's request with its top-level fields optional.
 * The client fills the envelope (`adcp_version`, `idempotency_key`) and a caller may build the rest
 * from a `JsonObject`; names and types are checked at every level, nested objects in full, and
 * missing top-level fields are left to the request schema (`validate: 'request'`). For a complete
 * request, write `args satisfies ToolRequest<'get_products'>`.
 */
export type ToolArgs<N extends AdcpToolName> = Partial<ToolRequest<N>>;

/** Arguments of a call by tool name: typed for a known AdCP tool, any JSON object otherwise. */
export type CallArgs<N extends string> = N extends AdcpToolName ? ToolArgs<N> : JsonObject;
/** Body of a call's successful answer by tool name: typed for a known AdCP tool, JSON otherwise. */
export type CallData<N extends string> = N extends AdcpToolName ? ToolResponse<N> : JsonObject;
