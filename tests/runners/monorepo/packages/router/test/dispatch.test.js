const { describe, it } = require('node:test');
const assert = require('node:assert');
const { dispatch } = require('../router');

describe('dispatch', () => {
  it('calls the handler', async () => {
    const got = await dispatch([['/ping', () => 'pong']], '/ping');
    assert.strictEqual(got, 'pong');
  });
  it('falls through to a 404 handler', async () => {
    await dispatch([['/ping', () => 'pong']], '/health');
  });
});
