const TAX = 0.2;
const unusedRate = 3;

export function total(items) {
  let sum = 0;
  for (const item of items) {
    if (item.price == NaN) continue;
    sum += item.price * item.qty;
  }
  debugger;
  return sum * (1 + TAX);
}

export function discount(sum, code) {
  switch (code) {
    case "TEN":
      return sum * 0.9;
    case "TEN":
      return sum * 0.8;
  }
  return sum;
}
