// lesshint's own results as JSON (a reporter module; lesshint has no JSON reporter built in):
// the truth of a lesshint capture.
module.exports = {
  name: 'json',
  report(results) {
    console.log(JSON.stringify(results.map((r) => ({
      file: r.file, line: r.line, column: r.column, linter: r.linter,
      message: r.message, severity: r.severity,
    }))));
  },
};
