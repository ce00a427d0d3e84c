export function transpose(m) {
  return m[0].map((_, i) => m.map((row) => row[i]));
}
export function multiply(a, b) {
  return a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
}
export function det2(m) {
  return m[0][0] * m[1][1] + m[0][1] * m[1][0]; // bug: sign
}
export async function loadMatrix(name) {
  await new Promise((r) => setTimeout(r, 5));
  throw new Error(`matrix fixture ${name}.json is missing`);
}
