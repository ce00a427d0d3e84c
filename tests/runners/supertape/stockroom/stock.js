// A tiny stockroom with deliberate bugs, for real supertape failures.
const reorderPoint = (dailyUse, leadDays) => dailyUse * leadDays;
const binCode = (aisle, shelf) => `${aisle}${shelf}`;
const restock = (items) => items.filter((i) => i.qty < i.min).map((i) => i.sku);
const unitPrice = (cents) => (cents / 100).toFixed(1);
const receive = (order) => {
  if (!order.lines) throw new TypeError('order has no lines');
  return order.lines.length;
};
const skuValid = (sku) => /^[A-Z]{3}-\d{3}$/.test(sku);
module.exports = { reorderPoint, binCode, restock, unitPrice, receive, skuValid };
