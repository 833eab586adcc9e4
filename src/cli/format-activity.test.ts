import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activityToJson, formatActivity } from './format-activity.js';
import { createProgressLine } from './progress-line.js';
import { createStyle } from './style.js';

const plain = createStyle(false);
const AT = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

describe('formatActivity', () => {
  it('prints one line per event kind', () => {
    const line = (event: Parameters<typeof formatActivity>[0]) => formatActivity(event, plain);
    assert.equal(
      line({ type: 'request', at: AT, side: 'client', tool: 'get_products', protocol: 'a2a', attempt: 2 }),
      '03:04:05.678  request   get_products  a2a  attempt 2\n',
    );
    assert.equal(
      line({
        type: 'response',
        at: AT,
        side: 'client',
        tool: 'create_media_buy',
        protocol: 'mcp',
        status: 'failed',
        errorCode: 'RATE_LIMITED',
        durationMs: 12.6,
        taskId: 't1',
        traceId: 'abc',
      }),
      '03:04:05.678  response  create_media_buy  failed  RATE_LIMITED  13 ms  task t1  trace abc\n',
    );
    assert.equal(
      line({ type: 'status_change', at: AT, from: 'submitted', status: 'completed', taskId: 't1', operationId: 'o1' }),
      '03:04:05.678  status    submitted -> completed  task t1  op o1\n',
    );
    assert.equal(
      line({
        type: 'webhook',
        direction: 'sent',
        at: AT,
        attempt: 1,
        idempotencyKey: 'k1',
        httpStatus: 200,
        outcome: 'delivered',
      }),
      '03:04:05.678  webhook   sent attempt 1  200  delivered  key k1\n',
    );
  });

  it('sanitises seller text: no escape sequence or line break reaches the terminal', () => {
    const text = formatActivity(
      {
        type: 'response',
        at: AT,
        side: 'client',
        tool: 'x',
        protocol: 'mcp',
        status: 'completed',
        durationMs: 1,
        taskId: 'a\u001b[2J\nb',
      },
      plain,
    );
    assert.ok(!text.includes('\u001b') && text.indexOf('\n') === text.length - 1, JSON.stringify(text));
  });

  it('gives JSON with snake_case keys, an ISO time and whole milliseconds', () => {
    assert.deepEqual(
      activityToJson({
        type: 'webhook',
        direction: 'received',
        at: AT,
        outcome: 'refused',
        httpStatus: 401,
        reason: 'r',
        durationMs: 2.4,
      }),
      {
        type: 'webhook',
        direction: 'received',
        at: '2026-01-02T03:04:05.678Z',
        outcome: 'refused',
        http_status: 401,
        reason: 'r',
        duration_ms: 2,
      },
    );
  });
});

describe('ProgressLine.above', () => {
  it('on a terminal, prints the line above the live progress line and redraws it', () => {
    let written = '';
    const progress = createProgressLine({ write: (chunk: string) => (written += chunk), isTTY: true });
    progress.update('working');
    progress.above('event\n');
    assert.equal(written, '\r\u001b[2Kworking\r\u001b[2Kevent\n\r\u001b[2Kworking');
    progress.done();
  });

  it('elsewhere, prints the line as it is', () => {
    let written = '';
    const progress = createProgressLine({ write: (chunk: string) => (written += chunk) });
    progress.above('event\n');
    assert.equal(written, 'event\n');
  });
});
