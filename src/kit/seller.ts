import type { JsonObject } from '../core/types.js';
import type { Format, Product } from '../schemas/generated/adcp-3.1.js';
import type { ToolContext } from '../server/types.js';

/** What a buyer asked `get_products` for (the request as sent, the caller who sent it). */
export interface ProductQuery {
  brief: string | undefined;
  filters: JsonObject;
  principal: string;
}

/** A media buy the kit is about to create, with each package's product resolved. */
export interface ProposedBuy {
  principal: string;
  /** The account the buy is for (its `account_id`, resolved from the request's account reference). */
  accountId: string;
  request: JsonObject;
  packages: { request: JsonObject; product: Product }[];
  /** The sum of the packages' budgets, in `currency`. */
  totalBudget: number;
  currency: string;
}

/**
 * What the seller decides of a new buy: `confirm` (the default) answers at once with a
 * `media_buy_id`; `approve` answers `submitted` and confirms after the seller's own review
 * (`afterMs`, then the task completes and webhooks fire), or fails the task with `reject`.
 */
export type BuyDecision =
  | { kind: 'confirm' }
  | { kind: 'approve'; afterMs: number; reject?: { code: string; message: string } }
  | { kind: 'reject'; code: string; message: string; field?: string };

/**
 * A seller plugs its inventory, pricing and decisions into the kit through this. Only `products`
 * is required; each other member has the default its comment names.
 */
export interface MediaBuySeller {
  /** The products this caller may see for a query (3.1 `core/product.json`). The kit adds seeded ones. */
  products(query: ProductQuery): Product[] | Promise<Product[]>;
  /** The creative formats the seller accepts (`list_creative_formats`). Default: none listed. */
  formats?: Format[];
  /** Decides a new buy. Default: every buy is confirmed at once. */
  decide?(buy: ProposedBuy, context: ToolContext): BuyDecision | Promise<BuyDecision>;
  /**
   * Whether the seller accepts a package's proposed `measurement_terms` (3.1 `core/measurement-terms.json`)
   * for that product; a string is the reason it refuses (TERMS_REJECTED). Default: terms asking
   * for a billing variance of 0 % or a vendor the product does not offer are refused.
   */
  acceptTerms?(terms: JsonObject, product: Product): true | string;
  /** The status a newly synced account gets. Default `active`. */
  openAccount?(request: JsonObject): 'active' | 'pending_approval';
  /** How new creatives are reviewed: `auto_approve` (default: approved at once) or `manual` (pending_review). */
  creativeApproval?: 'auto_approve' | 'manual';
}
