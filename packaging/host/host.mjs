// Stanley's workflow host: a child process of stanleyd that discovers, loads and runs trusted
// repository workflows from .stanley/workflows/, and calls back into the daemon for prompt,
// judge and log. It speaks newline-delimited JSON-RPC 2.0 over stdin/stdout (protocol 2, see
// docs/protocol.md). Started as `node --import tsx host.mjs`, so TypeScript modules load too.
//
// The host loads a staged copy of the folder (written by stanleyd into a private folder from the
// bytes trust hashed), never the repository's files, and confines every import a workflow makes
// to that copy and Node.js built-ins (boot.mjs, imported before this file, by this process and
// every worker or fork: confine.mjs for `import`, a CommonJS resolver for `require`).

import { createInterface } from "node:readline";
import { readdirSync, readFileSync, realpathSync, statSync, lstatSync, existsSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";

const PROTOCOL = 2;
const FACTORY_TIMEOUT_MS = 30000;
const MAX_RESULT_BYTES = 8 * 1024 * 1024;
const ID_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
const CONTROL = new Set(["id", "run", "cleanup", "available"]);

let nextId = 1;
const pending = new Map();
const runs = new Map();
let loaded = [];

function send(message) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
}

function call(method, params) {
  const id = `h${nextId++}`;
  return new Promise((resolvePromise, reject) => {
    pending.set(id, { resolve: resolvePromise, reject });
    send({ id, method, params });
  });
}

function typeName(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function describe(value) {
  if (typeof value === "string") {
    const quoted = JSON.stringify(value);
    return quoted.length > 80 ? quoted.slice(0, 80) + "…" : quoted;
  }
  return typeName(value);
}

function isJsonValue(value, seen = new Set()) {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object") return false;
  if (seen.has(value)) return false;
  seen.add(value);
  let ok;
  if (Array.isArray(value)) {
    ok = value.every((item) => item !== undefined && isJsonValue(item, seen));
  } else {
    const proto = Object.getPrototypeOf(value);
    ok = (proto === Object.prototype || proto === null) &&
      Object.values(value).every((item) => item !== undefined && isJsonValue(item, seen));
  }
  seen.delete(value);
  return ok;
}

function makeLog(source, run) {
  const emit = (level) => (message, data) => {
    const record = { run, source, level, message: String(message) };
    if (data !== undefined) record.data = isJsonValue(data) ? data : String(data);
    send({ method: "log", params: record });
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

function inside(dir, path) {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && rel !== "..");
}

function packageEntry(pkgDir) {
  const manifest = join(pkgDir, "package.json");
  if (existsSync(manifest)) {
    let pkg;
    try {
      pkg = JSON.parse(readFileSync(manifest, "utf8"));
    } catch (error) {
      throw new Error(`invalid package.json: ${error.message}`);
    }
    const fromExports = (value) => {
      if (typeof value === "string") return value;
      if (value && typeof value === "object") {
        if ("." in value) return fromExports(value["."]);
        if (typeof value.import === "string") return value.import;
        if (typeof value.default === "string") return value.default;
      }
      return undefined;
    };
    const declared = fromExports(pkg.exports) ?? (typeof pkg.module === "string" ? pkg.module : undefined) ??
      (typeof pkg.main === "string" ? pkg.main : undefined);
    if (declared !== undefined) {
      const full = resolve(pkgDir, declared);
      let real;
      try {
        real = realpathSync(full);
      } catch {
        real = undefined;
      }
      if (!inside(pkgDir, full) || !real || !inside(realpathSync(pkgDir), real) || !statSync(real).isFile()) {
        throw new Error(`package entrypoint not found or escapes its directory: ${declared}`);
      }
      return full;
    }
  }
  for (const name of ["index.ts", "index.js"]) {
    const full = join(pkgDir, name);
    if (existsSync(full) && statSync(full).isFile()) return full;
  }
  throw new Error("no package entrypoint (package.json exports/module/main, or index.ts / index.js)");
}

// The folder boot.mjs confines this process's imports to (set before any workflow loads).
function confine(folder) {
  const confinedTo = globalThis[Symbol.for("stanley.confinedTo")];
  if (typeof confinedTo !== "string" || realpathSync(confinedTo) !== folder) {
    throw new Error("the workflow host was not started confined to this folder (boot.mjs)");
  }
}

function discover(dir, label) {
  const sources = [];
  const diagnostics = [];
  if (!existsSync(dir)) return { sources, diagnostics };
  let realDir;
  try {
    realDir = realpathSync(dir);
  } catch (error) {
    diagnostics.push({ source: label, phase: "discover", message: error.message });
    return { sources, diagnostics };
  }
  let names;
  try {
    names = readdirSync(dir).sort();
  } catch (error) {
    diagnostics.push({ source: label, phase: "discover", message: error.message });
    return { sources, diagnostics };
  }
  for (const name of names) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const full = join(dir, name);
    const source = `${label}/${name}`;
    let stat;
    try {
      stat = statSync(full);
    } catch {
      continue;
    }
    const isFile = stat.isFile();
    if (isFile && (!(name.endsWith(".ts") || name.endsWith(".js")) || name.endsWith(".d.ts"))) continue;
    let real;
    try {
      real = realpathSync(full);
    } catch {
      continue;
    }
    if (!inside(realDir, real) || real === realDir) {
      diagnostics.push({ source, phase: "discover", message: "workflow source escapes its directory" });
      continue;
    }
    if (isFile) {
      sources.push({ source, entry: full });
    } else if (stat.isDirectory()) {
      try {
        sources.push({ source, entry: packageEntry(full) });
      } catch (error) {
        diagnostics.push({ source, phase: "discover", message: error.message });
      }
    }
  }
  return { sources, diagnostics };
}

function validate(workflow) {
  if (workflow === null || typeof workflow !== "object" || Array.isArray(workflow)) {
    return `factory must resolve to a workflow object (got ${typeName(workflow)})`;
  }
  if (typeof workflow.id !== "string" || !ID_PATTERN.test(workflow.id)) {
    return `workflow.id must match /^[a-z][a-z0-9_-]{0,63}$/ (got ${describe(workflow.id)})`;
  }
  if (typeof workflow.run !== "function") return `workflow.run must be a function (got ${typeName(workflow.run)})`;
  for (const field of ["cleanup", "available"]) {
    if (workflow[field] !== undefined && typeof workflow[field] !== "function") {
      return `workflow.${field} must be a function when present (got ${typeName(workflow[field])})`;
    }
  }
  if (Object.prototype.hasOwnProperty.call(workflow, "options") && Object.prototype.propertyIsEnumerable.call(workflow, "options")) {
    return "workflow.options is not supported: workflows cannot declare CLI options; read the request and input instead";
  }
  for (const key of Object.keys(workflow)) {
    if (CONTROL.has(key)) continue;
    if (!isJsonValue(workflow[key])) return `workflow.${key} must be JSON routing metadata (got ${typeName(workflow[key])})`;
  }
  return undefined;
}

function metadataOf(workflow) {
  const metadata = {};
  for (const key of Object.keys(workflow)) if (!CONTROL.has(key)) metadata[key] = workflow[key];
  return metadata;
}

// `snapshot` is the staged copy (its `workflows/` folder holds the files), `label` the folder's
// name in the repository, `root` the repository (handed to factories and runs).
async function load({ root, snapshot, label }) {
  const folder = realpathSync(join(snapshot, "workflows"));
  confine(folder);
  const relabel = (text) => text.split(folder).join(label).replace(/\?v=\d+/g, "");
  const { sources, diagnostics } = discover(folder, label);
  loaded = [];
  for (const { source, entry } of sources) {
    let module;
    try {
      module = await import(pathToFileURL(entry).href + `?v=${Date.now()}`);
    } catch (error) {
      diagnostics.push({ source, phase: "import", message: relabel(String(error?.message ?? error).split("\n").filter((l) => l.trim()).slice(0, 2).join(" ")) });
      continue;
    }
    let factory = module.default;
    if (factory && typeof factory === "object" && typeof factory.default === "function") factory = factory.default;
    if (typeof factory !== "function") {
      diagnostics.push({ source, phase: "validate", message: `default export must be an async factory function (got ${typeName(factory)})` });
      continue;
    }
    const controller = new AbortController();
    const log = makeLog(source, null);
    let promise;
    try {
      promise = factory({ root, signal: controller.signal, log });
    } catch (error) {
      diagnostics.push({ source, phase: "factory", message: relabel(String(error?.message ?? error)) });
      continue;
    }
    if (!promise || typeof promise.then !== "function") {
      diagnostics.push({ source, phase: "factory", message: "default factory must return a Promise" });
      continue;
    }
    let timer;
    let workflow;
    try {
      workflow = await Promise.race([
        promise,
        new Promise((_, reject) => {
          timer = setTimeout(() => {
            controller.abort();
            reject(new Error(`factory did not resolve within ${FACTORY_TIMEOUT_MS / 1000} s`));
          }, FACTORY_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      diagnostics.push({ source, phase: "factory", message: relabel(String(error?.message ?? error)) });
      continue;
    } finally {
      clearTimeout(timer);
    }
    const problem = validate(workflow);
    if (problem) {
      try {
        if (workflow && typeof workflow.cleanup === "function") await workflow.cleanup();
      } catch {
        // Errors from cleanup of a rejected workflow are ignored.
      }
      diagnostics.push({ source, phase: "validate", message: problem });
      continue;
    }
    loaded.push({ source, workflow, signal: controller.signal, controller });
  }
  return {
    workflows: loaded.map(({ source, workflow }) => ({
      id: workflow.id, source, metadata: metadataOf(workflow), gated: typeof workflow.available === "function",
    })),
    diagnostics,
  };
}

async function unload() {
  const errors = [];
  for (const { source, workflow } of [...loaded].reverse()) {
    try {
      if (typeof workflow.cleanup === "function") await workflow.cleanup();
    } catch (error) {
      errors.push({ source, message: String(error?.message ?? error) });
    }
  }
  loaded = [];
  return { errors };
}

async function available({ facts }) {
  const out = {};
  for (const { workflow } of loaded) {
    if (typeof workflow.available !== "function") {
      out[workflow.id] = true;
      continue;
    }
    try {
      out[workflow.id] = (await workflow.available({ diff: facts.diff, input: facts.input })) === true;
    } catch {
      out[workflow.id] = false;
    }
  }
  return out;
}

function checkInstructions(instructions) {
  if (typeof instructions !== "string" || instructions.trim() === "" || instructions.includes("\0") ||
    Buffer.byteLength(instructions, "utf8") > 16384) {
    throw new Error("prompt instructions must be non-empty text of at most 16384 bytes with no null bytes");
  }
}

async function run({ run: runId, id, request, input, hasInput, root }) {
  const entry = loaded.find(({ workflow }) => workflow.id === id);
  if (!entry) throw new Error(`workflow ${id} is not loaded`);
  const controller = new AbortController();
  runs.set(runId, controller);
  const signal = entry.signal;
  const abortOnRun = () => controller.abort();
  const context = {
    request,
    root,
    async prompt(instructions, childInput) {
      checkInstructions(instructions);
      if (childInput !== undefined && !isJsonValue(childInput)) throw new Error("prompt input must be text or JSON");
      if (controller.signal.aborted) throw new Error("run aborted");
      const params = { run: runId, instructions };
      if (childInput !== undefined) params.input = childInput;
      return await call("prompt", params);
    },
    async judge(request) {
      try {
        return await call("judge", { run: runId, request: isJsonValue(request) ? request : { __invalid: typeName(request) } });
      } catch (error) {
        return { ok: false, reason: "failed", detail: String(error?.message ?? error) };
      }
    },
    signal,
    log: makeLog(entry.source, runId),
  };
  if (hasInput) context.input = input;
  controller.signal.addEventListener("abort", () => entry.controller.abort(), { once: true });
  try {
    const value = await entry.workflow.run(context);
    if (!isJsonValue(value)) throw new Error(`workflow.run must return text or JSON (got ${typeName(value)})`);
    const text = JSON.stringify(value);
    if (Buffer.byteLength(text, "utf8") > MAX_RESULT_BYTES) {
      throw new Error(`workflow.run returned more than ${MAX_RESULT_BYTES} bytes of JSON`);
    }
    return { value };
  } finally {
    runs.delete(runId);
    void abortOnRun;
  }
}

const methods = {
  hello: async () => ({ protocol: PROTOCOL, node: process.versions.node }),
  load,
  unload,
  available,
  run,
};

createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.method === undefined && message.id !== undefined) {
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
    return;
  }
  if (message.method === "cancel") {
    runs.get(message.params?.run)?.abort();
    return;
  }
  const handler = methods[message.method];
  if (!handler) {
    send({ id: message.id, error: { code: -32601, message: `unknown method ${message.method}` } });
    return;
  }
  handler(message.params ?? {}).then(
    (result) => send({ id: message.id, result }),
    (error) => send({ id: message.id, error: { code: -32000, message: String(error?.message ?? error) } }),
  );
}).on("close", async () => {
  await unload();
  process.exit(0);
});

process.on("unhandledRejection", (error) => {
  process.stderr.write(`workflow host: unhandled rejection: ${String(error?.stack ?? error)}\n`);
});
