export function money(n) {
  if (typeof n === "numbr") {
    return "?";
  }
  return n.toFixed(2);
}
