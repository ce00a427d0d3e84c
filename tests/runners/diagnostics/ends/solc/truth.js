// The truth of a solc capture from solc's own standard JSON: each error with its file, line
// (from its source offset) and message, as JSON lines. Usage: node truth.js FILE...
const fs = require('fs');
const solc = require('solc');
const sources = {};
for (const f of process.argv.slice(2)) sources[f] = { content: fs.readFileSync(f, 'utf8') };
const out = JSON.parse(solc.compile(JSON.stringify({
  language: 'Solidity', sources, settings: { outputSelection: { '*': { '*': ['abi'] } } },
})));
for (const e of out.errors || []) {
  const loc = e.sourceLocation;
  const text = sources[loc.file].content;
  const line = text.slice(0, loc.start).split('\n').length;
  console.log(JSON.stringify({ file: loc.file, line, severity: e.severity, message: e.message }));
}
