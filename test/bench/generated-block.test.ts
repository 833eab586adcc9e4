import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { replaceGeneratedBlock } from '../../bench/fixtures/generated-block.js';

const analysis = '### Where the time goes\n\nHand-written analysis that a bench run must keep.\n';

describe('replaceGeneratedBlock', () => {
  it('keeps the hand-written text around the block and replaces only the figures', () => {
    const first = replaceGeneratedBlock(undefined, 'webhooks', '| a | 1 |');
    const edited = `<!-- a note above -->\n${first}\n${analysis}`;
    const second = replaceGeneratedBlock(edited, 'webhooks', '| a | 2 |');
    assert.ok(second.startsWith('<!-- a note above -->\n'));
    assert.ok(second.endsWith(analysis));
    assert.match(second, /\| a \| 2 \|/);
    assert.doesNotMatch(second, /\| a \| 1 \|/);
  });
  it('puts the block above a file that has none, keeping the file', () => {
    const out = replaceGeneratedBlock(analysis, 'webhooks', 'figures');
    assert.ok(out.endsWith(analysis));
    assert.match(out, /^<!-- generated: webhooks .*-->\n\nfigures\n\n<!-- end generated: webhooks -->\n\n/);
  });
  it('is stable: the same figures twice give the same file', () => {
    const once = replaceGeneratedBlock(analysis, 'webhooks', 'figures');
    assert.equal(replaceGeneratedBlock(once, 'webhooks', 'figures'), once);
  });
});
