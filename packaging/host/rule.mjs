// The one rule for what a workflow may import, shared by the `import` hooks (confine.mjs) and
// the CommonJS resolver (host.mjs): a module inside the staged workflow folder imports files
// inside that folder and Node.js built-ins, nothing else. Relative and absolute specifiers are
// judged before anything outside is even looked at; bare package names are judged by where
// Node.js resolved them (only the folder's own node_modules counts).

import { isBuiltin } from "node:module";
import { dirname, posix, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const WHY = "a workflow imports only what its folder holds, and Node.js built-ins";

export function makeRule(folder, label) {
  const within = (path) => typeof path === "string" && (path === folder || path.startsWith(folder + sep));
  // A path as the person knows it: `.stanley/workflows/a.ts`, `scripts/x.js`.
  const shown = (path) => posix.normalize(`${label}/${relative(folder, path).split(sep).join("/")}`);
  const refused = (kind, specifier, parent, where) =>
    `${kind} "${specifier}" in ${shown(parent)} resolves outside ${label}${where ? ` (${where})` : ""}; refused: ${WHY}`;
  return {
    within,
    shown,
    // Before resolving: the refusal for a specifier that names a place outside, if it does.
    before(kind, specifier, parent) {
      if (specifier.startsWith("node:") || isBuiltin(specifier)) return undefined;
      let target;
      if (specifier === "." || specifier === ".." || specifier.startsWith("./") || specifier.startsWith("../")) {
        target = resolve(dirname(parent), specifier);
      } else if (specifier.startsWith("/")) {
        target = specifier;
      } else if (specifier.startsWith("file:")) {
        try {
          target = fileURLToPath(specifier);
        } catch {
          return refused(kind, specifier, parent);
        }
      } else if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) {
        // data:, http: and the like: code that is not a file of the folder.
        return refused(kind, specifier, parent);
      } else {
        return undefined;
      }
      if (within(target)) return undefined;
      const rel = relative(folder, target);
      return refused(kind, specifier, parent, rel.startsWith("..") ? shown(target) : target);
    },
    // A bare package name Node.js did not find in the folder's node_modules.
    missing(kind, specifier, parent) {
      return `${kind} "${specifier}" in ${shown(parent)}: no such package in ${label}/node_modules (${WHY})`;
    },
    // After resolving: the refusal for a resolved file outside, if it is.
    after(kind, specifier, parent, path) {
      if (path === undefined || within(path) || isBuiltin(path)) return undefined;
      return refused(kind, specifier, parent, path);
    },
    bare(specifier) {
      return !specifier.startsWith(".") && !specifier.startsWith("/") && !/^[a-z][a-z0-9+.-]*:/i.test(specifier) &&
        !isBuiltin(specifier);
    },
  };
}
