// Electricity tariffs with deliberate bugs, tested by wru.
exports.cost = (kwh, rate) => Math.round(kwh * rate);
exports.standing = (days) => days * 0.45;
exports.band = (kwh) => (kwh < 100 ? 'low' : kwh < 300 ? 'mid' : 'high');
exports.total = (bill) => bill.units.reduce((s, u) => s + u, 0) + bill.fee;
