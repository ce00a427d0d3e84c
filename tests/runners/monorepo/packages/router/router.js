function match(pattern, path) {
  const p = pattern.split('/'), s = path.split('/');
  if (p.length !== s.length) return null;
  const params = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) params[p[i].slice(1)] = s[i];
    else if (p[i] !== s[i]) return null;
  }
  return params;
}
async function dispatch(routes, path) {
  for (const [pattern, handler] of routes) {
    const params = match(pattern, path);
    if (params) return handler(params);
  }
  throw new Error(`no route for ${path}`);
}
module.exports = { match, dispatch };
