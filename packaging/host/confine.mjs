// Module resolution hooks for the workflow host (registered by boot.mjs with module.register):
// an `import` made by a module inside the staged workflow folder resolves only to a file inside
// that folder or to a Node.js built-in (rule.mjs). CommonJS `require` is confined by boot.mjs
// with the same rule (Node 20's module.register hooks do not see it).

import { fileURLToPath } from "node:url";
import { makeRule } from "./rule.mjs";

let rule;

export async function initialize(data) {
  rule = makeRule(data.folder, data.label);
}

function pathOf(url) {
  if (typeof url !== "string" || !url.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

export async function resolve(specifier, context, nextResolve) {
  if (rule === undefined) throw new Error("stanley workflow host: imports are not confined (initialize was not called); refused");
  const parent = pathOf(context.parentURL);
  if (!rule.within(parent)) return nextResolve(specifier, context);
  const early = rule.before("import", specifier, parent) ?? rule.unreachable("import", specifier, parent);
  if (early) throw rule.error("import", early);
  let resolved;
  try {
    resolved = await nextResolve(specifier, context);
  } catch (error) {
    if (rule.bare(specifier)) throw rule.error("import", rule.missing("import", specifier, parent));
    throw error;
  }
  if (resolved.url.startsWith("node:")) return resolved;
  const path = pathOf(resolved.url);
  const late = path === undefined
    ? rule.before("import", resolved.url, parent)
    : rule.after("import", specifier, parent, path);
  if (late) throw rule.error("import", late);
  return resolved;
}
