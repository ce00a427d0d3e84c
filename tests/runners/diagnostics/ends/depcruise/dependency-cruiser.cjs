module.exports = {
  forbidden: [
    { name: 'no-ui-to-db', severity: 'error', comment: 'the UI talks to the core only',
      from: { path: '^src/ui' }, to: { path: '^src/db' } },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    { name: 'no-orphans', severity: 'warn', from: { orphan: true, pathNot: '\\.d\\.ts$' }, to: {} },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: { doNotFollow: { path: 'node_modules' } },
};
