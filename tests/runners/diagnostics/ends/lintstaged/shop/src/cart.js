// lint-staged capture project (issue 46): a cart with mistakes oxlint finds.
export function total(items) {
  let sum = 0;
  for (const item of items) {
    if (item.price = 0) continue;
    sum += item.price;
  }
  return sum;
}

export function isEmpty(items) {
  return items.length == NaN;
}

export function label(kind) {
  if (typeof kind === "strng") return "unknown";
  return kind;
}
