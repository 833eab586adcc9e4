import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADCP_TOOLS, isReadOnlyTool, taskSupportFor } from './tool-table.js';

describe('isReadOnlyTool', () => {
  it('treats the listed reads and every list_* tool as read-only', () => {
    assert.deepEqual(
      ['get_products', 'get_task_status', 'list_anything', 'get_adcp_capabilities', 'tasks/get'].map(isReadOnlyTool),
      [true, true, true, true, true],
    );
  });

  it('treats every other tool as mutating, unknown names and Object.prototype keys included', () => {
    assert.deepEqual(
      ['create_media_buy', 'sync_creatives', 'some_new_tool', 'get_products_and_buy', 'constructor', 'toString'].map(
        isReadOnlyTool,
      ),
      [false, false, false, false, false, false],
    );
  });
});

describe('taskSupportFor', () => {
  it("reads the mcp-guide's table", () => {
    assert.equal(taskSupportFor('create_media_buy'), 'optional');
    assert.equal(taskSupportFor('get_products'), 'optional');
    assert.equal(taskSupportFor('get_media_buys'), 'forbidden');
  });

  it("lets the tool's own setting win, and is forbidden for a tool the table does not name", () => {
    assert.equal(taskSupportFor('get_media_buys', 'required'), 'required');
    assert.equal(taskSupportFor('my_tool'), 'forbidden');
    assert.equal(taskSupportFor('list_creative_formats'), 'forbidden');
    assert.equal(taskSupportFor('__proto__'), 'forbidden');
  });
});

describe('ADCP_TOOLS', () => {
  it('names no tool as both a read and task-required', () => {
    const both = Object.entries(ADCP_TOOLS).filter(([, facts]) => facts.readOnly && facts.taskSupport === 'required');
    assert.deepEqual(both, []);
  });
});
