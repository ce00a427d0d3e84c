// Drives `stanleyctl lsp` as an editor would, with the official LSP client libraries
// (vscode-languageserver-protocol over vscode-jsonrpc, what VS Code's language client uses), and
// prints what it saw as one JSON document for tests/e2e/lsp.rs and the bench to judge.
//
// node client.mjs <scenario>   scenarios: session, cancel, garbage, disconnect, restart, refused,
// triage, bench
// Environment: STANLEYCTL and STANLEY (the binaries), REPO (the repository), CHECK_REQUEST (a
// request the fake System One routes to check), CRITERIA (a criteria file for stanley.check);
// everything else is passed on to the server and the command line runs unchanged.
import { spawn, spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  InitializeRequest,
  InitializedNotification,
  ShutdownRequest,
  ExitNotification,
  PublishDiagnosticsNotification,
  DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification,
  HoverRequest,
  CodeActionRequest,
  ExecuteCommandRequest,
  WorkDoneProgressCreateRequest,
  ShowDocumentRequest,
  CancellationTokenSource,
} from "vscode-languageserver-protocol/node";

const env = process.env;
const repo = env.REPO;
const scenario = process.argv[2];
const seen = { scenario };
const DEADLINE_MS = 45000;

function fail(why) {
  seen.error = why;
  process.stdout.write(JSON.stringify(seen) + "\n");
  process.exit(2);
}

// The whole script has one deadline: it never hangs a test.
const watchdog = setTimeout(() => fail(`deadline passed in ${scenario}`), 120000);

function server() {
  const child = spawn(env.STANLEYCTL, ["lsp"], { cwd: repo, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, exited };
}

function connect(child) {
  const connection = createProtocolConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const diagnostics = new Map();
  const published = [];
  const progress = [];
  const logs = [];
  connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
    diagnostics.set(p.uri, p.diagnostics);
    published.push({ at: performance.now(), uri: p.uri, diagnostics: p.diagnostics });
  });
  connection.onNotification("$/progress", (p) => progress.push(p));
  connection.onNotification("window/logMessage", (p) => logs.push(p.message));
  connection.onNotification("window/showMessage", (p) => logs.push(p.message));
  connection.onRequest(WorkDoneProgressCreateRequest.type, () => null);
  connection.onRequest(ShowDocumentRequest.type, (p) => {
    seen.shownDocument = p;
    return { success: true };
  });
  connection.onError(() => {});
  connection.onClose(() => {});
  connection.listen();
  return { connection, diagnostics, published, progress, logs };
}

async function until(what, check, ms = DEADLINE_MS) {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const value = check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  fail(`timed out waiting for ${what}`);
}

async function initialize(connection) {
  const result = await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(repo).href,
    capabilities: {
      window: { workDoneProgress: true, showDocument: { support: true } },
      textDocument: { publishDiagnostics: { relatedInformation: true } },
    },
    workspaceFolders: null,
  });
  await connection.sendNotification(InitializedNotification.type, {});
  return result;
}

function cli(args) {
  const out = spawnSync(args[0] === "stanley" ? env.STANLEY : env.STANLEYCTL, args.slice(1), {
    cwd: repo,
    encoding: "utf8",
    timeout: 60000,
  });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const runOf = (d) => d.data && d.data.runId;
const uriOf = (path) => pathToFileURL(`${repo}/${path}`).href;
const brief = (d) => ({
  line: d.range.start.line,
  endLine: d.range.end.line,
  severity: d.severity,
  code: d.code,
  source: d.source,
  message: d.message,
  related: (d.relatedInformation || []).map((r) => r.message),
  runId: runOf(d),
  fingerprint: d.data && d.data.fingerprint,
});

async function shutdown(connection, exited) {
  await connection.sendRequest(ShutdownRequest.type);
  await connection.sendNotification(ExitNotification.type);
  const exit = await exited;
  seen.exit = { code: exit.code, signal: exit.signal, stderr: exit.stderr };
}

async function session() {
  const file = "test/config.test.js";
  const uri = uriOf(file);
  const { child, exited } = server();
  seen.pid = child.pid;
  const c = connect(child);
  const init = await initialize(c.connection);
  seen.commands = init.capabilities.executeCommandProvider.commands;
  seen.serverInfo = init.serverInfo;
  // The run the test made before: its findings appear for the changed file.
  const first = await until("diagnostics for the changed file", () => {
    const d = c.diagnostics.get(uri);
    return d && d.length > 0 && d;
  });
  seen.initial = first.map(brief);
  const text = readFileSync(`${repo}/${file}`, "utf8");
  await c.connection.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: "javascript", version: 1, text },
  });
  const target = first[0];
  const hover = await c.connection.sendRequest(HoverRequest.type, {
    textDocument: { uri },
    position: { line: target.range.start.line, character: 0 },
  });
  seen.hover = hover && hover.contents.value;
  const actions = await c.connection.sendRequest(CodeActionRequest.type, {
    textDocument: { uri },
    range: target.range,
    context: { diagnostics: [target] },
  });
  seen.actions = actions.map((a) => ({ title: a.title, command: a.command }));
  // Two lines typed above: the diagnostics move down with their lines.
  const before = c.published.length;
  await c.connection.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "// a\n// b\n" },
    ],
  });
  await until("diagnostics after the edit", () => c.published.length > before);
  seen.moved = c.diagnostics.get(uri).map(brief);
  // An edit on the first finding's own line drops it.
  const line = seen.moved[0].line;
  const beforeDrop = c.published.length;
  await c.connection.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 3 },
    contentChanges: [
      { range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: "/* edited */ " },
    ],
  });
  await until("diagnostics after editing a finding's line", () => c.published.length > beforeDrop);
  seen.afterEdit = c.diagnostics.get(uri).map(brief);
  // The edits are undone (the document is the saved file again): the findings of the next run
  // sit where the run put them. (With the edits kept, its findings on the edited lines would be
  // dropped, as the first ones were.)
  await c.connection.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 4 },
    contentChanges: [{ text }],
  });

  // A run from the command line refreshes them.
  const firstRun = runOf(target);
  const t0 = performance.now();
  seen.cli = cli(["stanley", env.CHECK_REQUEST]);
  await until("diagnostics of the command line's run", () => {
    const d = c.diagnostics.get(uri);
    return d && d.some((x) => runOf(x) !== firstRun) && d;
  });
  seen.refreshed = c.diagnostics.get(uri).map(brief);
  seen.refreshedAfterMs = performance.now() - t0;

  // Mark one seen: the daemon keeps it and the diagnostic goes.
  const mark = seen.refreshed[0];
  const beforeMark = c.published.length;
  seen.marked = await c.connection.sendRequest(ExecuteCommandRequest.type, {
    command: "stanley.markSeen",
    arguments: [mark.runId, mark.fingerprint],
  });
  await until("diagnostics after marking seen", () => {
    if (c.published.length === beforeMark) return false;
    const d = c.diagnostics.get(uri) || [];
    return !d.some((x) => x.data.fingerprint === mark.fingerprint && runOf(x) === mark.runId);
  });
  seen.afterSeen = c.diagnostics.get(uri).map(brief);
  seen.opened = await c.connection.sendRequest(ExecuteCommandRequest.type, {
    command: "stanley.openRun",
    arguments: [mark.runId],
  });

  // A check from the editor, with progress under the editor's token.
  const token = "check-from-editor";
  seen.check = await c.connection.sendRequest(ExecuteCommandRequest.type, {
    command: "stanley.check",
    arguments: [env.CRITERIA],
    workDoneToken: token,
  });
  // The end of the progress and the answer travel separately; the end follows soon.
  await until("the check's progress to end", () =>
    c.progress.some((p) => p.token === token && p.value.kind === "end"),
  );
  seen.checkProgress = c.progress.filter((p) => p.token === token).map((p) => p.value);
  // A review from the editor, with progress under a token the server asks the editor for.
  const reviewFrom = c.progress.length;
  seen.review = await c.connection.sendRequest(ExecuteCommandRequest.type, {
    command: "stanley.review",
    arguments: [],
  });
  await until("the review's progress to end", () =>
    c.progress.slice(reviewFrom).some((p) => p.value.kind === "end"),
  );
  seen.reviewProgress = c.progress.slice(reviewFrom).map((p) => ({ token: p.token, kind: p.value.kind }));
  // A bad argument is one line.
  try {
    await c.connection.sendRequest(ExecuteCommandRequest.type, {
      command: "stanley.triage",
      arguments: ["/etc/hostname"],
    });
  } catch (e) {
    seen.refused = { code: e.code, message: e.message };
  }
  seen.logs = c.logs;
  await shutdown(c.connection, exited);
}

async function cancel() {
  const { child, exited } = server();
  seen.pid = child.pid;
  const c = connect(child);
  await initialize(c.connection);
  const token = "review-from-editor";
  const source = new CancellationTokenSource();
  const review = c.connection
    .sendRequest(
      ExecuteCommandRequest.type,
      { command: "stanley.review", arguments: [], workDoneToken: token },
      source.token,
    )
    .then(
      (r) => ({ result: r }),
      (e) => ({ error: { code: e.code, message: e.message } }),
    );
  // Cancelled once the daemon reports it is judging.
  await until("the review's progress", () =>
    c.progress.some((p) => p.token === token && p.value.kind === "report"),
  );
  source.cancel();
  seen.review = await review;
  await until("the review's progress to end", () =>
    c.progress.some((p) => p.token === token && p.value.kind === "end"),
  );
  seen.progress = c.progress.filter((p) => p.token === token).map((p) => p.value.kind);
  // The progress's cancel button (window/workDoneProgress/cancel) does the same.
  const button = "review-cancel-button";
  const second = c.connection
    .sendRequest(ExecuteCommandRequest.type, {
      command: "stanley.review",
      arguments: [],
      workDoneToken: button,
    })
    .then(
      (r) => ({ result: r }),
      (e) => ({ error: { code: e.code, message: e.message } }),
    );
  await until("the second review's progress", () =>
    c.progress.some((p) => p.token === button && p.value.kind === "report"),
  );
  await c.connection.sendNotification("window/workDoneProgress/cancel", { token: button });
  seen.buttonReview = await second;
  await shutdown(c.connection, exited);
}

async function garbage() {
  // Garbage first, then a real session on the same pipe.
  const { child, exited } = server();
  child.stdin.write("this is not a message\r\n\r\n");
  child.stdin.write("Content-Length: 7\r\n\r\n{nope!}");
  child.stdin.write("Content-Length: 2\r\n\r\n[]");
  const c = connect(child);
  const init = await initialize(c.connection);
  seen.initialized = !!init.capabilities;
  seen.hover = await c.connection.sendRequest(HoverRequest.type, {
    textDocument: { uri: uriOf("nowhere.js") },
    position: { line: 0, character: 0 },
  });
  await shutdown(c.connection, exited);
  // Only garbage, then the editor closes the pipe: the server leaves, saying so.
  const lone = server();
  lone.child.stdin.write("Content-Length: 4\r\n\r\n\xff\xfe\x00\x01");
  lone.child.stdin.end();
  const out = await lone.exited;
  seen.garbageOnly = { code: out.code, signal: out.signal, stderr: out.stderr };
}

async function disconnect() {
  const { child, exited } = server();
  seen.pid = child.pid;
  const c = connect(child);
  await initialize(c.connection);
  const token = "review-then-gone";
  c.connection
    .sendRequest(ExecuteCommandRequest.type, {
      command: "stanley.review",
      arguments: [],
      workDoneToken: token,
    })
    .catch(() => {});
  await until("the review's progress", () =>
    c.progress.some((p) => p.token === token && p.value.kind === "report"),
  );
  // The editor goes away mid-request.
  c.connection.dispose();
  child.stdin.destroy();
  child.stdout.destroy();
  const exit = await exited;
  seen.exit = { code: exit.code, signal: exit.signal, stderr: exit.stderr };
}

async function restart() {
  const file = "test/config.test.js";
  const uri = uriOf(file);
  const { child, exited } = server();
  seen.pid = child.pid;
  const c = connect(child);
  await initialize(c.connection);
  const first = await until("diagnostics", () => {
    const d = c.diagnostics.get(uri);
    return d && d.length > 0 && d;
  });
  seen.firstRun = runOf(first[0]);
  seen.restart = cli(["stanleyctl", "daemon", "restart"]);
  seen.cli = cli(["stanley", env.CHECK_REQUEST]);
  await until("diagnostics from the restarted daemon", () => {
    const d = c.diagnostics.get(uri);
    return d && d.some((x) => runOf(x) !== seen.firstRun);
  });
  seen.secondRun = runOf(c.diagnostics.get(uri)[0]);
  seen.logs = c.logs;
  await shutdown(c.connection, exited);
}

async function triage() {
  // The triage run the test made: its failures sit on the repository's file and line.
  const uri = uriOf(env.TRIAGE_FILE);
  const { child, exited } = server();
  const c = connect(child);
  await initialize(c.connection);
  const found = await until("the triage's diagnostics", () => {
    const d = (c.diagnostics.get(uri) || []).filter((x) => x.code === "triage_failures");
    return d.length > 0 && d;
  });
  seen.diagnostics = found.map(brief);
  await shutdown(c.connection, exited);
}

async function refused() {
  // A runtime folder others can open: the server says why in one message and connects nowhere.
  const { child, exited } = server();
  const c = connect(child);
  await initialize(c.connection);
  seen.message = await until("the refusal", () => c.logs.find((l) => l.includes("refusing")));
  await shutdown(c.connection, exited);
}

async function bench() {
  // Time from a run's result reaching the command line to the diagnostics being published.
  const file = "test/config.test.js";
  const uri = uriOf(file);
  const { child, exited } = server();
  seen.pid = child.pid;
  const c = connect(child);
  await initialize(c.connection);
  await until("diagnostics", () => (c.diagnostics.get(uri) || []).length > 0);
  const rounds = Number(env.ROUNDS || 5);
  seen.latencyMs = [];
  for (let i = 0; i < rounds; i++) {
    const last = runOf(c.diagnostics.get(uri)[0]);
    const before = c.published.length;
    const out = cli(["stanley", env.CHECK_REQUEST]);
    const ended = performance.now();
    // ACCEPT: the exit codes a run may end with (a check over its item cap is incomplete, 10).
    const accepted = (env.ACCEPT || "0").split(",").map(Number);
    if (!accepted.includes(out.code)) fail(`run ${i} exited ${out.code}: ${out.stderr}`);
    await until("fresh diagnostics", () => {
      const d = c.diagnostics.get(uri) || [];
      return d.length > 0 && runOf(d[0]) !== last;
    });
    const p = c.published.slice(before).find((x) => x.uri === uri && x.diagnostics.some((d) => runOf(d) !== last));
    // Negative when the diagnostics were out before the command line had printed and exited.
    seen.latencyMs.push(p.at - ended);
  }
  seen.rssKb = rss(child.pid);
  seen.diagnosticCount = [...c.diagnostics.values()].reduce((n, d) => n + d.length, 0);
  seen.files = [...c.diagnostics.values()].filter((d) => d.length > 0).length;
  await shutdown(c.connection, exited);
}

function rss(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name) => Number((status.match(new RegExp(`${name}:\\s+(\\d+)`)) || [])[1] || 0);
    return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
  } catch {
    return null;
  }
}

const scenarios = { session, cancel, garbage, disconnect, restart, refused, triage, bench };
if (!scenarios[scenario]) fail(`unknown scenario ${scenario}`);
await scenarios[scenario]();
clearTimeout(watchdog);
process.stdout.write(JSON.stringify(seen) + "\n");
process.exit(0);
