const { Basket } = require('../basket');

describe('Basket', () => {
  describe('totals', () => {
    it('multiplies by quantity', () => {
      expect(new Basket().add('apple', 30, 3).total()).toBe(90);
    });
    it('is zero when empty', () => {
      expect(new Basket().total()).toBe(0);
    });
    it('applies codes', () => {
      const b = new Basket();
      expect(b.discount('SPRING10')).toBe(0.1);
      expect(b.discount('summer25')).toBe(0.25);
      expect(b.discount('WINTER5')).toBe(0.05);
    });
  });
  it('lists skus in order', () => {
    expect(new Basket().add('pear', 1).add('fig', 2).skus()).toEqual(['fig', 'kiwi', 'pear']);
  });
  it('checks out', async () => {
    await new Basket().add('fig', 2).checkout();
  });
});
