import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { prepareArgs } from './idempotency.js';

describe('prepareArgs', () => {
  it('adds a fresh key to a mutating call and none to a read', () => {
    assert.equal(typeof prepareArgs('create_media_buy', {}, { protocol: 'mcp' }).args['idempotency_key'], 'string');
    assert.equal('idempotency_key' in prepareArgs('get_products', {}, { protocol: 'mcp' }).args, false);
  });

  it('gives two calls two different keys', () => {
    const a = prepareArgs('create_media_buy', {}, { protocol: 'mcp' }).idempotencyKey;
    const b = prepareArgs('create_media_buy', {}, { protocol: 'mcp' }).idempotencyKey;
    assert.notEqual(a, b);
  });

  it('keeps a key already in the arguments', () => {
    assert.equal(
      prepareArgs('create_media_buy', { idempotency_key: 'mine-123' }, { protocol: 'mcp' }).idempotencyKey,
      'mine-123',
    );
  });

  it('lets the idempotencyKey option win, even on a read', () => {
    assert.equal(
      prepareArgs('get_products', { idempotency_key: 'x' }, { protocol: 'mcp', idempotencyKey: 'opt' }).args[
        'idempotency_key'
      ],
      'opt',
    );
  });

  it('drops context_id on MCP and keeps it on A2A', () => {
    assert.equal('context_id' in prepareArgs('get_products', { context_id: 'c' }, { protocol: 'mcp' }).args, false);
    assert.equal(prepareArgs('get_products', { context_id: 'c' }, { protocol: 'a2a' }).args['context_id'], 'c');
  });

  it('refuses an idempotency_key argument that is not a string', () => {
    assert.throws(() => prepareArgs('create_media_buy', { idempotency_key: 42 }, { protocol: 'mcp' }), TypeError);
  });

  it('gives an MCP push_notification_config a UUID operation_id when it has none', () => {
    const args = prepareArgs(
      'create_media_buy',
      { push_notification_config: { url: 'https://b.example/h' } },
      { protocol: 'mcp' },
    ).args;
    const push = args['push_notification_config'] as Record<string, unknown>;
    assert.equal(push['url'], 'https://b.example/h');
    assert.match(String(push['operation_id']), /^[0-9a-f-]{36}$/);
  });

  it('keeps the caller operation_id', () => {
    const args = prepareArgs(
      'create_media_buy',
      { push_notification_config: { url: 'u', operation_id: 'op-1' } },
      { protocol: 'mcp' },
    ).args;
    assert.equal((args['push_notification_config'] as Record<string, unknown>)['operation_id'], 'op-1');
  });

  it('does not modify the caller object', () => {
    const args = { context_id: 'c' };
    prepareArgs('create_media_buy', args, { protocol: 'mcp', context: { a: 1 } });
    assert.deepEqual(args, { context_id: 'c' });
  });

  it('sends no idempotency_key at all with omitIdempotencyKey (a missing-key probe)', () => {
    const prepared = prepareArgs(
      'create_media_buy',
      { idempotency_key: 'k'.repeat(16) },
      { protocol: 'mcp', omitIdempotencyKey: true },
    );
    assert.equal(prepared.idempotencyKey, undefined);
    assert.equal('idempotency_key' in prepared.args, false);
  });
});
