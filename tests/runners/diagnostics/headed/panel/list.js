export function first(list) {
  for (var i = 0; i < list.length; i++) {
    return list[i];
  }
}
export const flags = { on: true, on: false };
export function neg(x) { return -(-x); }
