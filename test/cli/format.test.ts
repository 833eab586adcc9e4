import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatTable } from '../../src/cli/table.js';
import { createProgressLine } from '../../src/cli/progress-line.js';
import { createStyle, wantsColor } from '../../src/cli/style.js';
import { safeJson } from '../../src/cli/safe-json.js';
import { recordingIo } from './fake-io.js';

describe('formatTable', () => {
  it('aligns columns under a header and a rule', () => {
    const text = formatTable(
      ['tool', 'tasks'],
      [
        ['get_products', 'optional'],
        ['x', 'forbidden'],
      ],
    );
    assert.equal(
      text,
      'tool          tasks\n------------  ---------\nget_products  optional\nx             forbidden\n',
    );
  });

  it('sanitises and cuts long cells', () => {
    const text = formatTable(['a'], [['evil\u001b]0;title\u0007' + 'y'.repeat(100)]], { maxCell: 10 });
    assert.equal(text.split('\n')[2], 'evil]0;ti…');
  });
});

describe('createProgressLine', () => {
  it('rewrites one line in place on a terminal and clears it when done', () => {
    let written = '';
    const line = createProgressLine({ write: (c: string) => (written += c), isTTY: true });
    line.update('working 10%');
    line.update('working 50%');
    line.done();
    assert.equal(written, '\r\u001b[2Kworking 10%\r\u001b[2Kworking 50%\r\u001b[2K');
  });

  it('prints each change on its own line when not a terminal, skipping repeats', () => {
    let written = '';
    const line = createProgressLine({ write: (c: string) => (written += c) });
    line.update('working');
    line.update('working');
    line.update('completed\u001b[2J');
    line.done();
    assert.equal(written, 'working\ncompleted[2J\n');
  });
});

describe('createProgressLine with a clock', () => {
  it('shows the seconds since the first update on a terminal', () => {
    let written = '';
    let t = 1000;
    const line = createProgressLine(
      { write: (c: string) => (written += c), isTTY: true },
      { clock: true, now: () => t },
    );
    line.update('working');
    t = 4500;
    line.update('working 50%');
    line.done();
    assert.equal(written, '\r\u001b[2Kworking  (0 s)\r\u001b[2Kworking 50%  (3 s)\r\u001b[2K');
  });
});

describe('wantsColor', () => {
  it('colours only a terminal without NO_COLOR', () => {
    assert.equal(wantsColor(recordingIo({ tty: true })), true);
    assert.equal(wantsColor(recordingIo({ tty: false })), false);
    assert.equal(wantsColor(recordingIo({ tty: true, env: { NO_COLOR: '1' } })), false);
  });

  it('leaves text alone when colour is off', () => {
    assert.equal(createStyle(false).red('x'), 'x');
    assert.equal(createStyle(true).red('x'), '\u001b[31mx\u001b[39m');
  });
});

describe('safeJson', () => {
  it('escapes C1 controls and bidi overrides and stays valid JSON', () => {
    const value = { note: 'a\u009b31mb\u202ec' };
    const text = safeJson(value);
    assert.equal(text, '{"note":"a\\u009b31mb\\u202ec"}');
    assert.deepEqual(JSON.parse(text), value);
  });
});
