import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pageOf, readPageQuery, sortByKey, sortKey } from './paginate.js';
import { AdcpToolError } from './tool-error.js';

const items = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
const key = (item: { id: string }) => item.id;

function walk(args: Record<string, unknown>, set = items): string[][] {
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 10; i += 1) {
    const pagination = { ...(args.pagination as object), ...(cursor === undefined ? {} : { cursor }) };
    const page = pageOf(set, key, readPageQuery({ ...args, pagination }));
    pages.push(page.items.map(key));
    assert.equal(page.pagination.has_more, page.pagination.cursor !== undefined);
    assert.equal(page.pagination.total_count, set.length);
    if (!page.pagination.has_more) return pages;
    cursor = page.pagination.cursor;
  }
  throw new Error('did not end');
}

function refusal(fn: () => unknown): AdcpToolError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AdcpToolError);
    return error;
  }
  assert.fail('did not throw');
}

describe('readPageQuery and pageOf', () => {
  it('walks every item once in order, ending on a page without a cursor', () => {
    assert.deepEqual(walk({ pagination: { max_results: 2 } }), [['a', 'b'], ['c', 'd'], ['e']]);
    assert.deepEqual(walk({ pagination: { max_results: 5 } }), [['a', 'b', 'c', 'd', 'e']]);
  });

  it('defaults to 50 items and answers an empty set with a terminal page', () => {
    assert.equal(readPageQuery({}).maxResults, 50);
    assert.deepEqual(pageOf([], key, readPageQuery({})).pagination, { has_more: false, total_count: 0 });
  });

  it('neither repeats nor skips items when one is inserted between pages', () => {
    const first = pageOf(items, key, readPageQuery({ pagination: { max_results: 2 } }));
    const grown = [{ id: '0' }, ...items];
    const next = pageOf(grown, key, readPageQuery({ pagination: { max_results: 2, cursor: first.pagination.cursor } }));
    assert.deepEqual(next.items.map(key), ['c', 'd']);
  });

  it('pages a list sorted descending, or on another field with ties, without repeats or skips', () => {
    const desc = [...items].reverse();
    const query = (cursor?: string) => readPageQuery({ pagination: { max_results: 2, ...(cursor ? { cursor } : {}) } });
    const first = pageOf(desc, key, query(), 'desc');
    assert.deepEqual(first.items.map(key), ['e', 'd']);
    // 'd' removed and 'f' (which sorts before the cursor) added between pages.
    const changed = [{ id: 'f' }, ...desc.filter((i) => i.id !== 'd')];
    assert.deepEqual(pageOf(changed, key, query(first.pagination.cursor), 'desc').items.map(key), ['c', 'b']);

    // On a date with ties, then the id: the key sorts as the list does, a shorter value first.
    const rows = [
      { id: 'x', at: '2026-01-02' },
      { id: 'a', at: '2026-01-02' },
      { id: 'm', at: '2026-01-01' },
      { id: 'b', at: '2026-01-0' },
      { id: 'nul', at: 'z\u0000' },
    ];
    const rowKey = (r: { id: string; at: string }) => sortKey(r.at, r.id);
    for (const order of ['asc', 'desc'] as const) {
      const sorted = sortByKey(rows, rowKey, order);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 10; i += 1) {
        const page = pageOf(sorted, rowKey, query(cursor), order);
        seen.push(...page.items.map((r) => r.id));
        cursor = page.pagination.cursor;
        if (cursor === undefined) break;
      }
      const expected = ['b', 'm', 'a', 'x', 'nul'];
      assert.deepEqual(seen, order === 'asc' ? expected : expected.reverse());
    }
  });

  it('refuses max_results outside 1 to 100 with INVALID_REQUEST on pagination.max_results', () => {
    for (const max of [0, 101, 2.5, '2']) {
      const error = refusal(() => readPageQuery({ pagination: { max_results: max } }));
      assert.equal(error.code, 'INVALID_REQUEST');
      assert.equal(error.field, 'pagination.max_results');
    }
  });

  it('refuses a forged, truncated or foreign cursor with INVALID_REQUEST on pagination.cursor', () => {
    const cursor = pageOf(items, key, readPageQuery({ filters: { x: 1 }, pagination: { max_results: 1 } })).pagination
      .cursor!;
    for (const bad of ['nope', cursor.slice(0, -3), 'c1.!!!', 42, 'c1.' + 'A'.repeat(3000)]) {
      const error = refusal(() => readPageQuery({ filters: { x: 1 }, pagination: { cursor: bad } }));
      assert.equal(error.field, 'pagination.cursor');
    }
    // The same cursor with other filters is another query.
    assert.equal(refusal(() => readPageQuery({ filters: { x: 2 }, pagination: { cursor } })).code, 'INVALID_REQUEST');
    // Envelope fields do not change the query.
    assert.equal(readPageQuery({ filters: { x: 1 }, context: { a: 1 }, pagination: { cursor } }).after, 'a');
  });
});
