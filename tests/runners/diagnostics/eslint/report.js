const unused = 1;
export function report(items) {
  if (items.length == 0) return missing;
  console.log(items);
}
