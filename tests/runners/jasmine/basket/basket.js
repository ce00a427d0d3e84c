// A shopping basket with deliberate bugs for the jasmine captures.
class Basket {
  constructor() { this.items = []; }
  add(sku, price, qty = 1) { this.items.push({ sku, price, qty }); return this; }
  total() { return this.items.reduce((s, i) => s + i.price, 0); }       // BUG: ignores qty
  discount(code) { return code === 'SPRING10' ? 0.1 : 0; }
  skus() { return this.items.map((i) => i.sku).sort(); }
  checkout() { return Promise.reject(new Error('payment gateway refused card ending 4242')); }
}
module.exports = { Basket };
