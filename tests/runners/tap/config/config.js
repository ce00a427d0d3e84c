// Config loading with deliberate bugs for the node-tap captures.
export function parse(text) {
  const out = {};
  for (const line of text.split('\n')) {
    const [k, v] = line.split('=');
    if (k) out[k.trim()] = v.trim();          // BUG: values stay strings
  }
  return out;
}
export function validate(cfg) {
  const problems = [];
  if (!cfg.region) problems.push("- missing key 'region'");
  if (typeof cfg.port !== 'number') problems.push(`- port must be a number, got ${typeof cfg.port}`);
  if (problems.length) throw new Error('config invalid:\n' + problems.join('\n'));
  return cfg;
}
export const merge = (a, b) => ({ ...b, ...a });   // BUG: wrong precedence
