import { createHash } from 'node:crypto';
import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import type { Product } from '../schemas/generated/adcp-3.1.js';
import { adcpError } from '../server/tools/adcp-error.js';
import type { KitRecords } from './records.js';
import type { MediaBuySeller, ProductQuery, RefineVerdict } from './seller.js';

/**
 * Proposals (get-products-request.json `refine`, core/proposal.json, create-media-buy-request.json
 * `proposal_id`): the seller's curated plans are stored as `draft`; `buying_mode: refine` revises,
 * omits or finalizes them (`committed`, with `expires_at` and an insertion order); create_media_buy
 * executes a committed one before it expires. One home for PROPOSAL_NOT_FOUND, PROPOSAL_EXPIRED,
 * PROPOSAL_NOT_COMMITTED, IO_REQUIRED and the finalize-exclusivity rule.
 */

const DAY_MS = 86_400_000;
const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

interface ProposalDeps {
  records: KitRecords;
  seller: MediaBuySeller;
  now: () => number;
}

export function proposalRules(deps: ProposalDeps) {
  const { records, seller, now } = deps;
  const holdMs = seller.proposalHoldMs ?? DAY_MS;
  const shown = (body: JsonObject): JsonObject => {
    const { kit_key: _key, ...rest } = body;
    return rest;
  };

  /**
   * The seller's proposals for a brief, stored as drafts. The id is derived from the principal,
   * the query and the plan's name, so the same brief sent again names the same proposals (a
   * committed one is returned as committed, never back to draft).
   */
  const propose = async (query: ProductQuery, products: Product[]): Promise<JsonObject[] | undefined> => {
    if (seller.propose === undefined) return undefined;
    const drafts = await seller.propose(query, products);
    const out: JsonObject[] = [];
    for (const draft of drafts) {
      const body = draft as unknown as JsonObject;
      const key = JSON.stringify([query.brief ?? '', query.filters, body.name]);
      const id = `prop_${hash(`${query.principal}\u0000${key}`)}`;
      const stored = await records.get(query.principal, 'proposal', id);
      if (stored !== undefined) {
        out.push(shown(stored.body));
        continue;
      }
      const proposal: JsonObject = { ...body, proposal_id: id, proposal_status: 'draft' };
      await records.put(query.principal, 'proposal', id, proposal, 0);
      out.push(proposal);
    }
    return out;
  };

  /** A proposal the caller was given; PROPOSAL_NOT_FOUND (at `field`) when it was never issued to it. */
  const load = async (principal: string, id: unknown, field: string) => {
    const stored = typeof id === 'string' ? await records.get(principal, 'proposal', id) : undefined;
    if (stored === undefined) {
      throw adcpError('PROPOSAL_NOT_FOUND', {
        message: 'The proposal was never issued to this buyer; send a brief for fresh proposals.',
        field,
      });
    }
    return stored;
  };

  /**
   * `buying_mode: refine`: each entry answered in `refinement_applied`, in order. Finalize is
   * exclusive (all entries proposal-scoped finalizes, or INVALID_REQUEST) and atomic: every named
   * proposal is checked before any is committed.
   */
  const refine = async (
    args: JsonObject,
    principal: string,
    products: Product[],
  ): Promise<{ products: Product[]; proposals?: JsonObject[]; refinement_applied: JsonObject[] }> => {
    const entries = jsonObjects(args.refine);
    if (entries.length === 0)
      throw adcpError('INVALID_REQUEST', { message: 'refine needs at least one entry.', field: 'refine' });
    const finalizing = entries.some((e) => e.action === 'finalize');
    if (finalizing) {
      const odd = entries.findIndex((e) => e.scope !== 'proposal' || e.action !== 'finalize');
      if (odd >= 0) {
        throw adcpError('INVALID_REQUEST', {
          message: 'A finalize refine holds only proposal-scoped finalize entries; refine first, then finalize.',
          field: `refine[${odd}]`,
        });
      }
      // Every named proposal is checked before any is committed (a lapsed hold is committed again).
      const stored = [];
      for (const [i, entry] of entries.entries())
        stored.push(await load(principal, entry.proposal_id, `refine[${i}].proposal_id`));
      const proposals: JsonObject[] = [];
      for (const record of stored) {
        const id = record.id;
        const expiresAt = new Date(now() + holdMs).toISOString();
        const body: JsonObject = {
          ...record.body,
          proposal_status: 'committed',
          expires_at: expiresAt,
          insertion_order: {
            io_id: isJsonObject(record.body.insertion_order)
              ? (record.body.insertion_order.io_id ?? `io_${id}`)
              : `io_${id}`,
            requires_signature: seller.proposalRequiresSignature !== false,
          },
        };
        if (!(await records.put(principal, 'proposal', id, body, record.version))) {
          throw adcpError('CONFLICT', { message: `The proposal ${id} changed meanwhile; finalize again.` });
        }
        proposals.push(shown(body));
      }
      return {
        products: [],
        proposals,
        refinement_applied: entries.map((e) => ({
          scope: 'proposal',
          proposal_id: String(e.proposal_id),
          status: 'applied',
        })),
      };
    }
    let shownProducts = [...products];
    const proposals: JsonObject[] = [];
    const applied: JsonObject[] = [];
    for (const [i, entry] of entries.entries()) {
      const ask = typeof entry.ask === 'string' ? entry.ask : undefined;
      const verdict = async (extra: { product?: Product; proposal?: JsonObject }): Promise<RefineVerdict> =>
        ask === undefined
          ? { status: 'applied' }
          : ((await seller.refine?.(entry, { products, ...extra })) ?? {
              status: 'unable',
              notes: 'This seller does not act on free-text asks; returned unchanged.',
            });
      if (entry.scope === 'request') {
        const v = await verdict({});
        applied.push({ scope: 'request', status: v.status, ...(v.notes === undefined ? {} : { notes: v.notes }) });
      } else if (entry.scope === 'product') {
        const id = String(entry.product_id);
        const product = products.find((p) => p.product_id === id);
        if (product === undefined) {
          // Not an error (the spec names none for products): the entry could not be applied.
          applied.push({ scope: 'product', product_id: id, status: 'unable', notes: 'No such product here.' });
          continue;
        }
        let v: RefineVerdict = { status: 'applied' };
        if (entry.action === 'omit') shownProducts = shownProducts.filter((p) => p.product_id !== id);
        else if (entry.action === 'more_like_this') {
          // Similar: sharing a channel and the delivery type; the original is kept.
          shownProducts = [
            product,
            ...shownProducts.filter(
              (p) =>
                p.product_id !== id &&
                p.delivery_type === product.delivery_type &&
                p.channels?.some((c) => product.channels?.includes(c)),
            ),
          ];
        } else v = await verdict({ product });
        applied.push({
          scope: 'product',
          product_id: id,
          status: v.status,
          ...(v.notes === undefined ? {} : { notes: v.notes }),
        });
      } else {
        const record = await load(principal, entry.proposal_id, `refine[${i}].proposal_id`);
        let v: RefineVerdict = { status: 'applied' };
        if (entry.action !== 'omit') {
          v = await verdict({ proposal: shown(record.body) });
          let body = record.body;
          if (v.proposal !== undefined) {
            // A revised plan is a draft again only while it is not committed (status never goes back).
            body = { ...record.body, ...(v.proposal as unknown as JsonObject), proposal_id: record.id };
            body.proposal_status = record.body.proposal_status;
            if (!(await records.put(principal, 'proposal', record.id, body, record.version))) {
              throw adcpError('CONFLICT', { message: `The proposal ${record.id} changed meanwhile; refine again.` });
            }
          }
          proposals.push(shown(body));
        }
        applied.push({
          scope: 'proposal',
          proposal_id: record.id,
          status: v.status,
          ...(v.notes === undefined ? {} : { notes: v.notes }),
        });
      }
    }
    return {
      products: shownProducts,
      ...(proposals.length > 0 ? { proposals } : {}),
      refinement_applied: applied,
    };
  };

  /**
   * The packages of a create_media_buy that executes `proposal_id`: each allocation's share of
   * `total_budget` on its product. The proposal must be committed, unexpired, and its insertion
   * order accepted when it asks for a signature.
   */
  const packagesOf = async (
    args: JsonObject,
    principal: string,
    findProduct: (principal: string, id: unknown) => Promise<Product | undefined>,
  ): Promise<JsonObject[]> => {
    if (args.packages !== undefined) {
      throw adcpError('INVALID_REQUEST', {
        message: 'Send either proposal_id with total_budget or packages, not both.',
        field: 'packages',
      });
    }
    const record = await load(principal, args.proposal_id, 'proposal_id');
    const proposal = record.body;
    if (proposal.proposal_status !== 'committed') {
      throw adcpError('PROPOSAL_NOT_COMMITTED', {
        message: 'The proposal is a draft; finalize it (get_products, buying_mode refine, action finalize) first.',
        field: 'proposal_id',
      });
    }
    if (typeof proposal.expires_at === 'string' && Date.parse(proposal.expires_at) <= now()) {
      throw adcpError('PROPOSAL_EXPIRED', {
        message: 'The proposal hold has lapsed; finalize it again.',
        field: 'proposal_id',
      });
    }
    const order = isJsonObject(proposal.insertion_order) ? proposal.insertion_order : undefined;
    if (order?.requires_signature === true) {
      const accepted = isJsonObject(args.io_acceptance) ? args.io_acceptance : undefined;
      if (accepted?.io_id !== order.io_id) {
        throw adcpError('IO_REQUIRED', {
          message: `Accept insertion order ${String(order.io_id)} (io_acceptance) to execute this proposal.`,
          field: 'io_acceptance',
        });
      }
    }
    const budget = isJsonObject(args.total_budget) ? args.total_budget : undefined;
    if (typeof budget?.amount !== 'number') {
      throw adcpError('INVALID_REQUEST', {
        message: 'Executing a proposal needs total_budget.',
        field: 'total_budget',
      });
    }
    const amount = budget.amount;
    const packages: JsonObject[] = [];
    for (const a of jsonObjects(proposal.allocations)) {
      // An allocation without a pricing option buys on the product's first one in the budget's currency.
      const options = ((await findProduct(principal, a.product_id))?.pricing_options ?? []) as unknown as JsonObject[];
      const option =
        typeof a.pricing_option_id === 'string'
          ? a.pricing_option_id
          : options.find((o) => o.currency === budget.currency)?.pricing_option_id;
      packages.push({
        product_id: a.product_id,
        pricing_option_id: option ?? null,
        budget: Math.round(amount * Number(a.allocation_percentage)) / 100,
      });
    }
    return packages;
  };

  return { propose, refine, packagesOf, supported: seller.propose !== undefined };
}
