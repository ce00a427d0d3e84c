// The workflow host's bootstrap, imported first (`node --import <tsx> --import boot.mjs`) by the
// host and, through `process.execArgv`, by every worker thread and `fork` a workflow starts: it
// confines `import` (the module.register hooks of confine.mjs) and `require` (the CommonJS
// resolver, patched here) made by modules inside the staged workflow folder to that folder and
// Node.js built-ins, by one rule (rule.mjs). The folder and its name come from the environment
// stanleyd sets when it starts the host (STANLEY_HOST_FOLDER, STANLEY_HOST_LABEL); without them
// nothing runs.

import Module, { register } from "node:module";
import { isAbsolute } from "node:path";
import { makeRule } from "./rule.mjs";

const folder = process.env.STANLEY_HOST_FOLDER;
const label = process.env.STANLEY_HOST_LABEL;
if (typeof folder !== "string" || !isAbsolute(folder) || typeof label !== "string" || label === "") {
  process.stderr.write("stanley workflow host: STANLEY_HOST_FOLDER and STANLEY_HOST_LABEL must name the staged folder; refusing to run\n");
  process.exit(70);
}

register(new URL("./confine.mjs", import.meta.url).href, { data: { folder, label } });

const rule = makeRule(folder, label);
const original = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const from = parent?.filename;
  if (!rule.within(from)) return original.call(this, request, parent, ...rest);
  const early = rule.before("require", request, from) ?? rule.unreachable("require", request, from);
  if (early) throw rule.error("require", early);
  let resolved;
  try {
    resolved = original.call(this, request, parent, ...rest);
  } catch (error) {
    if (error?.code === "MODULE_NOT_FOUND" && rule.bare(request)) throw rule.error("require", rule.missing("require", request, from));
    throw error;
  }
  const late = rule.after("require", request, from, resolved);
  if (late) throw rule.error("require", late);
  return resolved;
};

// What the host checks its load request against: the one folder this process confines to.
globalThis[Symbol.for("stanley.confinedTo")] = folder;
