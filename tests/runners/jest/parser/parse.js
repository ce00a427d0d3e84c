function parseDuration(s) {
  const m = /^(\d+)(ms|s|m)$/.exec(s);
  if (!m) throw new SyntaxError(`bad duration literal: ${JSON.stringify(s)}`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60 * 1000;
}
function parseCsvLine(line) {
  return line.split(','); // bug: ignores quotes
}
function parseQuery(q) {
  const out = {};
  for (const part of q.replace(/^\?/, '').split('&')) {
    const [k, v] = part.split('=');
    out[k] = v; // bug: no decodeURIComponent
  }
  return out;
}
module.exports = { parseDuration, parseCsvLine, parseQuery };
