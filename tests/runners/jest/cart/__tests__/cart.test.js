const { total, applyCoupon, receipt } = require('../cart');

describe('Cart', () => {
  test('sums line items', () => {
    expect(total([{ price: 2, qty: 3 }, { price: 5, qty: 1 }])).toBe(11);
  });

  test('empty cart totals zero', () => {
    expect(total([])).toBe(0);
  });

  describe('coupons', () => {
    test('HALF halves the amount', () => {
      expect(applyCoupon(80, 'HALF')).toBe(40);
    });
    test('TENOFF takes ten off', () => {
      const got = applyCoupon(100, 'TENOFF');
      if (got !== 90) throw new RangeError(`TENOFF coupon gave ${got} instead of 90`);
    });
  });

  test('receipt matches snapshot', () => {
    expect(receipt([{ name: 'apple', price: 2, qty: 3 }])).toMatchSnapshot();
  });
});
