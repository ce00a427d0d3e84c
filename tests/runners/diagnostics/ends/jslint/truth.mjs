// truth.mjs JSLINT FILE...: each file's warnings from JSLint's own API, as JSON lines
// {file, line, column, message}.
import fs from "node:fs";
const {default: jslint} = await import(process.argv[2]);
for (const file of process.argv.slice(3)) {
    const result = jslint.jslint(fs.readFileSync(file, "utf8"));
    for (const w of result.warnings) {
        console.log(JSON.stringify({file, line: w.line, column: w.column, message: w.message}));
    }
}
