import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADCP_TOOLS, isReadOnlyTool, requiresIdempotencyKey, taskSupportFor } from './tool-table.js';

describe('isReadOnlyTool', () => {
  it('treats the listed reads and every list_* tool as read-only', () => {
    assert.deepEqual(
      ['get_products', 'get_task_status', 'list_anything', 'get_adcp_capabilities', 'tasks/get'].map((t) =>
        isReadOnlyTool(t),
      ),
      [true, true, true, true, true],
    );
  });

  it('treats every other tool as mutating, unknown names and Object.prototype keys included', () => {
    assert.deepEqual(
      ['create_media_buy', 'sync_creatives', 'some_new_tool', 'get_products_and_buy', 'constructor', 'toString'].map(
        (t) => isReadOnlyTool(t),
      ),
      [false, false, false, false, false, false],
    );
  });
});

describe('isReadOnlyTool in a release', () => {
  it("reads that release's manifest: get_products is mutating in the 3.2 beta, a read in 3.1", () => {
    assert.equal(isReadOnlyTool('get_products', '3.1'), true);
    assert.equal(isReadOnlyTool('get_products', '3.2-beta.5'), false);
    assert.equal(isReadOnlyTool('get_products'), true, 'without a release: the stable manifests');
  });

  it('falls back to every stable manifest for a tool the release does not name', () => {
    assert.equal(isReadOnlyTool('get_task_status', '3.0'), true);
    assert.equal(isReadOnlyTool('list_anything', '3.1'), true);
    assert.equal(isReadOnlyTool('__proto__', '3.1'), false);
  });
});

describe('requiresIdempotencyKey', () => {
  it('requires the key where the manifest says mutating and the request schema requires it', () => {
    assert.equal(requiresIdempotencyKey('create_media_buy', ['3.0', '3.1']), true);
    assert.equal(requiresIdempotencyKey('get_products', ['3.1', '3.2-beta.5']), false);
    assert.equal(requiresIdempotencyKey('si_terminate_session', ['3.1']), false);
    assert.equal(requiresIdempotencyKey('my_tool', ['3.1']), false);
    assert.equal(requiresIdempotencyKey('constructor', ['3.1']), false);
  });

  it('requires it in a release the library does not ship when a shipped one does', () => {
    assert.equal(requiresIdempotencyKey('create_media_buy', ['3.9']), true);
    assert.equal(requiresIdempotencyKey('get_products', ['3.9']), false);
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
