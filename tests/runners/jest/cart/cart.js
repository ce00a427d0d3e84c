function total(items) {
  return items.reduce((sum, it) => sum + it.price * it.qty, 0);
}
function applyCoupon(amount, code) {
  if (code === 'HALF') return amount / 2;
  if (code === 'TENOFF') return amount - 11; // bug: should be 10
  return amount;
}
async function loadPrices(region) {
  await new Promise((r) => setTimeout(r, 5));
  if (region !== 'eu') throw new Error(`price table for region "${region}" not found`);
  return { apple: 2, pear: 3 };
}
function receipt(items) {
  return { lines: items.map((i) => `${i.qty}x ${i.name}`), currency: 'USD', total: total(items) };
}
module.exports = { total, applyCoupon, loadPrices, receipt };
