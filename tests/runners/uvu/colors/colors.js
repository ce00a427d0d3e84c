// Colour conversions with deliberate bugs for the uvu captures.
export function hexToRgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [n >> 16, (n >> 8) & 0xff, n & 0xfe];     // BUG: masks off the low bit of blue
}
export function named(name) {
  const table = { teal: '#008080', navy: '#000080' };
  if (!(name in table)) throw new RangeError(`unknown colour name: ${name}`);
  return table[name];
}
export function lighten(rgb) { return rgb.map((c) => c + 40); }   // BUG: no clamp at 255
