// The media-buy kit's action surface (decision 0210): products' `allowed_actions[]` resolved onto
// a buy's `available_actions[]` at creation, kept with the buy, answered by create, update and
// get_media_buys, and enforced on update_media_buy with ACTION_NOT_ALLOWED. Served by
// createAdcpServer with every answer checked against the 3.1 response schemas (strict), called
// with the official MCP client, over each of the kit harness's stores (kit-harness.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaBuyKit } from '../../src/kit/index.js';
import type { ProductAllowedAction } from '../../src/schemas/generated/adcp-3.1.js';
import { account, FORMAT, KIT_STORES, kitProduct, serveKit, type Json, type ServedKit } from './kit-harness.js';

/** The template of the available_actions storyboard (media_buy_seller/available_actions). */
const TEMPLATE: ProductAllowedAction[] = [
  { action: 'increase_budget', modes: ['self_serve'], sla: { response_max: 'PT5M', completion_max: 'PT1H' } },
  {
    action: 'extend_flight',
    modes: ['requires_approval'],
    sla: { response_max: 'PT4H', completion_max: 'P2D' },
    terms_ref: 'terms://available-actions/extension',
  },
  { action: 'cancel', modes: ['requires_approval'], sla: { response_max: 'PT1H', completion_max: 'P1D' } },
  { action: 'decrease_budget', modes: ['self_serve'], allowed_statuses: ['paused'] },
];

/** A non-guaranteed product of the kit tests with a floor CPM, allowing `allowed` if given. */
const product = (id: string, allowed?: ProductAllowedAction[]) =>
  kitProduct({
    product_id: id,
    name: id,
    delivery_type: 'non_guaranteed',
    pricing_options: [{ pricing_option_id: 'cpm', pricing_model: 'cpm', currency: 'USD', floor_price: 8 }],
    ...(allowed === undefined ? {} : { allowed_actions: allowed }),
  });

const PRODUCTS = [
  product('templated', TEMPLATE),
  // Pauses self-serve and cancels in review; says nothing of budgets.
  product('pausable', [
    { action: 'pause', modes: ['self_serve'] },
    { action: 'resume', modes: ['self_serve'] },
    { action: 'cancel', modes: ['self_serve', 'requires_approval'] },
    { action: 'update_budget', modes: ['self_serve'] },
  ]),
  product('plain'),
];

let keys = 0;
const key = () => `actions-test-key-${String(++keys).padStart(6, '0')}`;

for (const store of KIT_STORES) {
  describe(`the kit's buy actions over ${store.label} records`, { skip: store.skip }, () => {
    let served: ServedKit;
    before(async () => {
      served = await serveKit((records) => createMediaBuyKit({ records, seller: { products: () => PRODUCTS } }), store);
      const synced = await call('sync_creatives', {
        account,
        idempotency_key: key(),
        creatives: [{ creative_id: 'cr_1', name: 'Rectangle', format_id: FORMAT, assets: {} }],
      });
      assert.equal(synced.isError, false, JSON.stringify(synced.body));
    });
    after(() => served.close());

    const call = (name: string, args: Json) => served.call(name, args);
    const create = (products: string[]) =>
      call('create_media_buy', {
        account,
        brand: account.brand,
        start_time: 'asap',
        end_time: '2099-07-31T23:59:59Z',
        packages: products.map((id) => ({
          product_id: id,
          pricing_option_id: 'cpm',
          budget: 10000,
          creative_assignments: [{ creative_id: 'cr_1' }],
        })),
        idempotency_key: key(),
      });
    const update = (args: Json) => call('update_media_buy', { account, idempotency_key: key(), ...args });
    const actionsOf = (body: Json) =>
      (body.available_actions as Json[]).map((a) => `${String(a.action)}:${String(a.mode)}`);
    /** An ACTION_NOT_ALLOWED answer as [reason, recovery, attempted action, actions echoed]. */
    const refusal = (answer: Awaited<ReturnType<typeof call>>) => {
      assert.equal(answer.code, 'ACTION_NOT_ALLOWED', JSON.stringify(answer.body));
      const details = answer.error?.details as Json;
      return [
        details.reason,
        answer.error?.recovery,
        details.attempted_action,
        (details.currently_available_actions as Json[]).map((a) => a.action),
      ];
    };

    it('lists the product template, resolves it onto the buy, and keeps it for get_media_buys', async () => {
      const found = await call('get_products', { buying_mode: 'brief', brief: 'display', account });
      const templated = (found.body.products as Json[]).find((p) => p.product_id === 'templated');
      assert.deepEqual(templated?.allowed_actions, TEMPLATE);
      assert.equal((found.body.products as Json[]).find((p) => p.product_id === 'plain')?.allowed_actions, undefined);

      const created = await create(['templated']);
      assert.equal(created.isError, false, JSON.stringify(created.body));
      assert.equal(created.body.media_buy_status, 'active');
      // decrease_budget is for paused buys only: not available while active.
      assert.deepEqual(created.body.available_actions, [
        { action: 'increase_budget', mode: 'self_serve', sla: { response_max: 'PT5M', completion_max: 'PT1H' } },
        {
          action: 'extend_flight',
          mode: 'requires_approval',
          sla: { response_max: 'PT4H', completion_max: 'P2D' },
          terms_ref: 'terms://available-actions/extension',
        },
        { action: 'cancel', mode: 'requires_approval', sla: { response_max: 'PT1H', completion_max: 'P1D' } },
      ]);
      assert.deepEqual(created.body.valid_actions, ['update_budget']);
      const id = created.body.media_buy_id as string;
      const listed = ((await call('get_media_buys', { account, media_buy_ids: [id] })).body.media_buys as Json[])[0];
      assert.deepEqual(listed?.available_actions, created.body.available_actions);
      assert.deepEqual(listed?.valid_actions, ['update_budget']);
    });

    it('applies a self-serve action and refuses the others with the reason the spec names', async () => {
      const created = await create(['templated']);
      const id = created.body.media_buy_id as string;
      const packageId = (created.body.packages as Json[])[0]?.package_id as string;
      const raised = await update({ media_buy_id: id, packages: [{ package_id: packageId, budget: 12000 }] });
      assert.equal(raised.isError, false, JSON.stringify(raised.body));
      assert.equal((raised.body.affected_packages as Json[])[0]?.budget, 12000);
      assert.ok(actionsOf(raised.body).includes('increase_budget:self_serve'));

      const all = ['increase_budget', 'extend_flight', 'cancel'];
      assert.deepEqual(refusal(await update({ media_buy_id: id, end_time: '2099-08-31T23:59:59Z' })), [
        'mode_mismatch',
        'correctable',
        'extend_flight',
        all,
      ]);
      assert.deepEqual(refusal(await update({ media_buy_id: id, canceled: true, cancellation_reason: 'x' })), [
        'mode_mismatch',
        'correctable',
        'cancel',
        all,
      ]);
      assert.deepEqual(
        refusal(await update({ media_buy_id: id, packages: [{ package_id: packageId, budget: 11000 }] })),
        ['wrong_status', 'correctable', 'decrease_budget', all],
      );
      assert.deepEqual(refusal(await update({ media_buy_id: id, paused: true })), [
        'not_supported_on_product',
        'terminal',
        'pause',
        all,
      ]);
      // A refused update changes nothing.
      const after = (
        (await call('get_media_buys', { account, media_buy_ids: [id] })).body.media_buys as Json[]
      )[0] as Json;
      assert.deepEqual(
        [after.status, after.revision, (after.packages as Json[])[0]?.budget, after.end_time],
        ['active', 2, 12000, '2099-07-31T23:59:59Z'],
      );
      // A field that changes nothing performs no action.
      const same = await update({ media_buy_id: id, end_time: '2099-07-31T23:59:59Z' });
      assert.equal(same.isError, false, JSON.stringify(same.body));
    });

    it('resolves several products to what every one allows, in the most restrictive first mode', async () => {
      const created = await create(['templated', 'pausable', 'plain']);
      assert.equal(created.isError, false, JSON.stringify(created.body));
      // cancel: requires_approval on one product, self_serve first on the other.
      assert.deepEqual(actionsOf(created.body), ['cancel:requires_approval']);
      const id = created.body.media_buy_id as string;
      // pause is declared by one product only: the buy was resolved without it.
      assert.deepEqual(refusal(await update({ media_buy_id: id, paused: true })), [
        'not_supported_on_buy',
        'terminal',
        'pause',
        ['cancel'],
      ]);

      const own = await create(['pausable']);
      const ownId = own.body.media_buy_id as string;
      assert.deepEqual(actionsOf(own.body), ['pause:self_serve', 'cancel:self_serve', 'update_budget:self_serve']);
      const paused = await update({ media_buy_id: ownId, paused: true });
      assert.equal(paused.body.media_buy_status, 'paused', JSON.stringify(paused.body));
      assert.deepEqual(actionsOf(paused.body), ['resume:self_serve', 'cancel:self_serve', 'update_budget:self_serve']);
      // The coarse update_budget rolls up decrease_budget.
      const packageId = (own.body.packages as Json[])[0]?.package_id as string;
      const lowered = await update({ media_buy_id: ownId, packages: [{ package_id: packageId, budget: 9000 }] });
      assert.equal(lowered.isError, false, JSON.stringify(lowered.body));
      assert.deepEqual(
        refusal(await update({ media_buy_id: ownId, packages: [{ package_id: packageId, creative_assignments: [] }] })),
        ['not_supported_on_product', 'terminal', 'remove_creative', ['resume', 'cancel', 'update_budget']],
      );
      const canceled = await update({ media_buy_id: ownId, canceled: true });
      assert.equal(canceled.body.media_buy_status, 'canceled');
      assert.deepEqual([canceled.body.available_actions, canceled.body.valid_actions], [[], []]);
    });

    it('leaves a buy of products without a template as before: valid_actions only, nothing refused', async () => {
      const created = await create(['plain']);
      assert.equal(created.body.available_actions, undefined);
      assert.ok((created.body.valid_actions as string[]).includes('pause'));
      const paused = await update({ media_buy_id: created.body.media_buy_id, paused: true });
      assert.equal(paused.body.media_buy_status, 'paused', JSON.stringify(paused.body));
      assert.equal(paused.body.available_actions, undefined);
    });

    it('adds new_packages to a buy (add_packages), refused where the products do not allow it', async () => {
      const created = await create(['plain']);
      const id = created.body.media_buy_id as string;
      const fresh = { product_id: 'plain', pricing_option_id: 'cpm', budget: 2500 };
      const added = await update({ media_buy_id: id, new_packages: [fresh] });
      assert.equal(added.isError, false, JSON.stringify(added.body));
      assert.deepEqual(
        (added.body.affected_packages as Json[]).map((p) => [p.package_id, p.product_id, p.budget]),
        [[`${id}_pkg_2`, 'plain', 2500]],
      );
      assert.equal(added.body.total_budget, 12500);
      const listed = (
        (await call('get_media_buys', { account, media_buy_ids: [id] })).body.media_buys as Json[]
      )[0] as Json;
      assert.deepEqual(
        (listed.packages as Json[]).map((p) => p.package_id),
        [`${id}_pkg_1`, `${id}_pkg_2`],
      );
      const unknown = await update({ media_buy_id: id, new_packages: [{ ...fresh, product_id: 'nope' }] });
      assert.deepEqual([unknown.code, unknown.error?.field], ['PRODUCT_NOT_FOUND', 'new_packages[0].product_id']);

      const templated = await create(['templated']);
      const refused = await update({ media_buy_id: templated.body.media_buy_id, new_packages: [fresh] });
      assert.deepEqual(refusal(refused).slice(0, 3), ['not_supported_on_product', 'terminal', 'add_packages']);
    });

    it('seeds a product with its allowed_actions through the controller, and refuses a malformed one', async () => {
      const seed = (fixture: Json) =>
        call('comply_test_controller', {
          scenario: 'seed_product',
          params: {
            product_id: 'seeded_actions',
            fixture: {
              delivery_type: 'non_guaranteed',
              pricing_options: [{ pricing_option_id: 'cpm', pricing_model: 'cpm', currency: 'USD', floor_price: 8 }],
              ...fixture,
            },
          },
        });
      for (const bad of [
        [{ action: 'pause', modes: [] }],
        [{ action: 'fly', modes: ['self_serve'] }],
        [
          { action: 'pause', modes: ['self_serve'] },
          { action: 'pause', modes: ['requires_approval'] },
        ],
        [{ action: 'pause', modes: ['self_serve'], sla: { response_max: '5 minutes' } }],
        [{ action: 'pause', modes: ['self_serve'], allowed_statuses: ['running'] }],
        [{ action: 'pause', modes: ['self_serve'], note: 'x' }],
      ]) {
        const refused = await seed({ allowed_actions: bad });
        assert.equal(refused.body.error, 'INVALID_PARAMS', JSON.stringify(bad));
      }
      const seeded = await seed({ allowed_actions: [TEMPLATE[0]] });
      assert.equal(seeded.isError, false, JSON.stringify(seeded.body));
      const found = await call('get_products', { buying_mode: 'brief', brief: 'seeded', account });
      const product = (found.body.products as Json[]).find((p) => p.product_id === 'seeded_actions');
      assert.deepEqual(product?.allowed_actions, [TEMPLATE[0]]);
    });
  });
}
