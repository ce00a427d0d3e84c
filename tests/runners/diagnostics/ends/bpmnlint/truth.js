// bpmnlint's own findings through its API (the CLI has no JSON output): the Linter, the
// NodeResolver and the project's .bpmnlintrc, the pieces its CLI uses. Prints one JSON line per
// report: {"file", "id", "message", "category", "rule"}, files in the order given.
// Run from a project folder: node ../truth.js NODE_MODULES FILE...
const fs = require('fs');
const path = require('path');
const [modules, ...files] = process.argv.slice(2);
const req = require('module').createRequire(path.join(modules, 'bpmnlint', 'package.json'));
const { BpmnModdle } = req('bpmn-moddle');
const Linter = req('./lib/linter');
const NodeResolver = req('./lib/resolver/node-resolver');
(async () => {
  const config = JSON.parse(fs.readFileSync('.bpmnlintrc', 'utf8'));
  const linter = new Linter({ config, resolver: new NodeResolver({ require: req }) });
  for (const file of files) {
    const { rootElement } = await new BpmnModdle().fromXML(fs.readFileSync(file, 'utf8'));
    const results = await linter.lint(rootElement);
    for (const [rule, reports] of Object.entries(results)) {
      for (const r of reports) {
        console.log(JSON.stringify({ file: path.resolve(file), id: r.id, message: r.message, category: r.category, rule }));
      }
    }
  }
})().catch((e) => { console.error(e); process.exit(2); });
