// A minimal editor client for Stanley with @grpc/grpc-js, written from docs/editors.md: it finds
// (or starts) the repository's daemon, checks the socket is the user's, connects with a default
// `unix:` channel, checks health and the protocol version, sends a request showing its progress
// and typed findings, cancels a second request, and reports a refused one.
//
//   npx tsx client.ts <repository root> "<request>"
//
// Prints one JSON object describing what it saw (the CI test reads it).

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as loader from "@grpc/proto-loader";

const here = path.dirname(fileURLToPath(import.meta.url));
const PROTOCOL_VERSION = 1;

// The schema: Stanley's own proto and the standard health service.
const definition = loader.loadSync(
  [path.join(here, "../../../proto/stanley/v1/stanley.proto"), path.join(here, "health.proto")],
  { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true },
);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const pkg = grpc.loadPackageDefinition(definition) as any;

function daemonSocket(root: string): string | undefined {
  try {
    const info = JSON.parse(fs.readFileSync(path.join(root, ".stanley/daemon/daemon.json"), "utf8"));
    return typeof info.socket === "string" ? info.socket : undefined;
  } catch {
    return undefined;
  }
}

// docs/editors.md step 1 (Node cannot read the peer's credentials without a native addon; the
// folder and socket checks still hold the socket to the user).
function checkOwnership(socket: string): void {
  const uid = process.getuid!();
  const folder = fs.lstatSync(path.dirname(socket));
  if (!folder.isDirectory() || folder.uid !== uid || (folder.mode & 0o077) !== 0) {
    throw new Error(`unsafe socket folder: ${path.dirname(socket)}`);
  }
  const sock = fs.lstatSync(socket);
  if (!sock.isSocket() || sock.uid !== uid) {
    throw new Error(`unsafe socket: ${socket}`);
  }
}

function call<T>(fn: (cb: (err: grpc.ServiceError | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Client = any;

async function status(stanley: Client) {
  return call((cb) =>
    stanley.getStatus({ clientProtocolVersion: PROTOCOL_VERSION, clientVersion: "editor-example" }, { deadline: Date.now() + 3000 }, cb),
  );
}

async function connect(root: string): Promise<{ stanley: Client; health: Client; started: boolean }> {
  const open = (socket: string) => {
    checkOwnership(socket);
    const target = `unix:${socket}`; // no channel options
    return {
      stanley: new pkg.stanley.v1.Stanley(target, grpc.credentials.createInsecure()),
      health: new pkg.grpc.health.v1.Health(target, grpc.credentials.createInsecure()),
    };
  };
  const known = daemonSocket(root);
  if (known && fs.existsSync(known)) {
    const clients = open(known);
    try {
      await status(clients.stanley);
      return { ...clients, started: false };
    } catch {
      // Not answering: start one below.
    }
  }
  spawn("stanleyd", ["--root", root], { detached: true, stdio: "ignore" }).unref();
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const socket = daemonSocket(root);
    if (socket && fs.existsSync(socket)) {
      try {
        const clients = open(socket);
        await status(clients.stanley);
        return { ...clients, started: true };
      } catch {
        // Not ready yet.
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the daemon did not start within 10 s");
}

async function main(root: string, request: string) {
  const seen: Record<string, unknown> = {};
  const { stanley, health, started } = await connect(root);
  seen.startedDaemon = started;
  const checked = await call<{ status: string }>((cb) => health.check({ service: "stanley.v1.Stanley" }, cb));
  seen.health = checked.status;
  const st = await status(stanley) as { protocolVersion: number };
  if (st.protocolVersion !== PROTOCOL_VERSION) {
    throw new Error(`daemon speaks protocol ${st.protocolVersion}; restart it`);
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && (k.startsWith("TYPESAFE_") || k.startsWith("STANLEY_") || k === "PATH" || k === "HOME")) {
      env[k] = v;
    }
  }
  // A request, with its progress and its typed result.
  const progress: [string, number, number][] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const result: any = await new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let last: any;
    const stream = stanley.prompt({ request, env });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    stream.on("data", (event: any) => {
      if (event.progress) progress.push([event.progress.phase, event.progress.done, event.progress.total]);
      if (event.result) last = event.result;
    });
    stream.on("end", () => resolve(last));
    stream.on("error", reject);
  });
  seen.progress = progress;
  seen.exitCode = result.exitCode;
  seen.workflow = result.workflow;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  seen.findings = result.findings.map((f: any) => ({ label: f.label, path: f.path, lines: [f.startLine, f.endLine], severity: f.severity, message: f.message }));
  // Cancellation: close a second request's stream after its first event.
  seen.cancelled = await new Promise((resolve) => {
    const stream = stanley.prompt({ request, env });
    stream.once("data", () => stream.cancel());
    stream.on("error", (e: grpc.ServiceError) => resolve(e.code === grpc.status.CANCELLED));
    stream.on("end", () => resolve(false));
  });
  // A refused request ends with a result whose error names the kind.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const refused: any = await new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let last: any;
    const stream = stanley.prompt({ request: "", env });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    stream.on("data", (event: any) => { if (event.result) last = event.result; });
    stream.on("end", () => resolve(last));
    stream.on("error", reject);
  });
  seen.refused = refused?.error ? { kind: refused.error.kind, message: refused.error.message, exitCode: refused.exitCode } : null;
  console.log(JSON.stringify(seen));
  stanley.close();
  health.close();
}

main(fs.realpathSync(process.argv[2]), process.argv[3]).catch((e) => {
  console.log(JSON.stringify({ error: String(e?.message ?? e) }));
  process.exit(1);
});
