// The one rule for what a workflow may import, shared by the `import` hooks (confine.mjs) and
// the CommonJS resolver (host.mjs): a module inside the staged workflow folder imports files
// inside that folder and Node.js built-ins, nothing else. Relative and absolute specifiers are
// judged before anything outside is even looked at; bare package names are judged by where
// Node.js resolved them (only the folder's own node_modules counts).

import { lstatSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
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
      // A relative specifier is shown where it points in the repository; an absolute one
      // already says where it points.
      if (!specifier.startsWith(".")) return refused(kind, specifier, parent);
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
    // Before resolving a bare package name: the refusal when no `node_modules/<name>` exists
    // between the importing module and the folder's top. Node.js would go on searching the
    // folders above (the daemon's runtime folder, `/tmp`, `/`), which other users may write;
    // it never gets to look there. `#subpath` imports resolve inside their own package.
    unreachable(kind, specifier, parent) {
      if (!this.bare(specifier) || specifier.startsWith("#")) return undefined;
      const parts = specifier.split("/");
      const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
      for (let dir = dirname(parent); within(dir); dir = dirname(dir)) {
        try {
          lstatSync(join(dir, "node_modules", name));
          return undefined;
        } catch {
          // Not here; one folder up, while still inside.
        }
        if (dir === folder) break;
      }
      return this.missing(kind, specifier, parent);
    },
    // The error a refusal throws: coded as Node.js codes a module it cannot find, so a package
    // that tries an optional dependency and carries on without it still does.
    error(kind, message) {
      const error = new Error(message);
      error.code = kind === "require" ? "MODULE_NOT_FOUND" : "ERR_MODULE_NOT_FOUND";
      return error;
    },
  };
}
