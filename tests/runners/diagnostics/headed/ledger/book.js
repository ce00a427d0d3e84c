// A ledger with deliberate lint findings (issue 46 captures).
export function balance(entries) {
  let sum = 0;
  for (const e of entries) {
    if (e.amount = 0) { continue; }
    sum += e.amount;
  }
  debugger;
  return sum;
}
export const rates = { usd: 1, eur: 0.92, usd: 1.01 };
export function same(a) {
  return a === a;
}
function unusedHelper() { return 1; }
