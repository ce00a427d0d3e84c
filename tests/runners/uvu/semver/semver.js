// Version helpers with deliberate bugs for the uvu captures.
export function parse(v) {
  const [major, minor, patch] = v.split('.').map(Number);
  return { major, minor, patch };              // BUG: pre-release tags become NaN
}
export function compare(a, b) {
  return a.localeCompare(b);                   // BUG: string order, 1.10 < 1.9
}
export function bump(v, part) {
  const p = parse(v);
  if (part === 'minor') return `${p.major}.${p.minor + 1}.${p.patch}`;  // BUG: patch not reset
  return `${p.major}.${p.minor}.${p.patch + 1}`;
}
