const assert = require('node:assert/strict');
const { Ledger, loadOpening } = require('../ledger');

describe('Ledger', function () {
  describe('#balance', function () {
    it('sums credits and debits', function () {
      assert.equal(new Ledger().add(1, 100).add(2, -40).balance(), 60);
    });
    it('ignores voided entries', function () {
      const l = new Ledger().add(1, 100).add(7, 20, true);
      assert.equal(l.balance(), 100, 'voided entry 7 counted');
    });
  });
  describe('#export', function () {
    beforeEach(function () {
      throw new Error('fixture ledger.csv unreadable');
    });
    it('writes a header', function () {
      assert.ok(true);
    });
  });
  it('lists categories', function () {
    assert.deepEqual(new Ledger().categories(), ['rent', 'fuel-surcharge']);
  });
  it('loads opening balance', async function () {
    await loadOpening('2026-q3');
  });
  it('converts to cents', function () {
    assert.equal(new Ledger().cents(12.34), 1234);
  });
});
