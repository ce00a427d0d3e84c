// A tiny ledger with deliberate bugs for the mocha captures.
class Ledger {
  constructor() { this.entries = []; }
  add(id, amount, voided = false) { this.entries.push({ id, amount, voided }); return this; }
  // BUG: voided entries are counted
  balance() { return this.entries.reduce((s, e) => s + e.amount, 0); }
  categories() { return ['rent', 'fuel']; }
  cents(x) { return Math.round(x * 100); }
}
async function loadOpening(quarter) {
  await new Promise((r) => setTimeout(r, 5));
  throw new Error(`opening balance file missing: ${quarter}.json`);
}
module.exports = { Ledger, loadOpening };
