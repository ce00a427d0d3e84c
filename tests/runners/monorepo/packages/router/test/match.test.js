const { describe, it } = require('node:test');
const assert = require('node:assert');
const { match } = require('../router');

describe('match', () => {
  it('matches static paths', () => {
    assert.deepStrictEqual(match('/users', '/users'), {});
  });
  it('captures params', () => {
    assert.deepStrictEqual(match('/users/:id', '/users/42'), { id: '42' });
  });
  it('ignores a trailing slash', () => {
    assert.deepStrictEqual(match('/users/:id', '/users/42/'), { id: '42' });
  });
  describe('wildcards', () => {
    it('matches a splat segment', () => {
      assert.deepStrictEqual(match('/files/*', '/files/a.txt'), { splat: 'a.txt' });
    });
  });
});
