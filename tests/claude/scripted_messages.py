#!/usr/bin/env python3
"""Scripted Anthropic Messages API server for driving the real Claude Code CLI.

Stdlib only. Usage:

    python3 scripted_messages.py --script turns.json --log requests.jsonl \
        [--port 0] [--port-file port.txt]

turns.json is a JSON list; each item is one answer to a *main-conversation*
request, in order:

    {"text": "some answer"}                     -> text, stop_reason end_turn
    {"bash": "echo hi", "text": "optional pre"} -> tool_use Bash, stop_reason tool_use
    {"tool": "Agent", "input": {...}}           -> tool_use of any tool, stop_reason tool_use

When the script is exhausted the server answers "SCRIPT-EXHAUSTED" (end_turn).

A request is a conversation turn when its `tools` list contains a tool named
"Bash" (the agent loop always sends its full tool set). Turns of a subagent
(Agent tool) carry the header x-claude-code-agent-id: they are logged with kind
"subagent" (and agent_id) but consume the same script, in order; a foreground
subagent runs to its end before the main loop's next request. Everything else
(title/topic generation, quota probe, summaries, count_tokens, ...) is a side
request: it is logged with kind "side" and answered with plain text without
consuming the script.

Every request is appended to the JSONL log as
    {"n", "method", "path", "headers", "body", "kind", "turn"}
where kind is main|subagent|side|count_tokens|other and turn is the script index used.
"""
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {"n": 0, "main": 0}


def is_main(body):
    tools = body.get("tools") or []
    return any(isinstance(t, dict) and t.get("name") == "Bash" for t in tools)


def sse(event, data):
    return ("event: %s\ndata: %s\n\n" % (event, json.dumps(data))).encode()


def build_blocks(turn, n):
    """Return (content_blocks, stop_reason) for a script turn."""
    blocks = []
    if turn.get("text"):
        blocks.append({"type": "text", "text": turn["text"]})
    if "bash" in turn:
        blocks.append({
            "type": "tool_use",
            "id": "toolu_%04d" % n,
            "name": "Bash",
            "input": {"command": turn["bash"],
                      "description": turn.get("description", "scripted command")},
        })
        return blocks, "tool_use"
    if "tool" in turn:
        blocks.append({"type": "tool_use", "id": "toolu_%04d" % n, "name": turn["tool"],
                       "input": turn.get("input", {})})
        return blocks, "tool_use"
    if not blocks:
        blocks.append({"type": "text", "text": ""})
    return blocks, "end_turn"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "scripted-messages/1"

    def log_message(self, fmt, *args):  # keep stderr quiet
        pass

    def _read_body(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}

    def _record(self, body, kind, turn=None):
        with LOCK:
            STATE["n"] += 1
            n = STATE["n"]
            rec = {"n": n, "t": time.time(), "method": self.command, "path": self.path,
                   "headers": dict(self.headers.items()), "body": body,
                   "kind": kind, "turn": turn,
                   "agent_id": self.headers.get("x-claude-code-agent-id")}
            with open(self.server.log_path, "a") as f:
                f.write(json.dumps(rec) + "\n")
        return n

    def _json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_scripted")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._record(None, "other")
        self._json(404, {"type": "error", "error": {"type": "not_found_error",
                                                    "message": "scripted server: " + self.path}})

    do_DELETE = do_GET
    do_PUT = do_GET

    def do_HEAD(self):
        self._record(None, "other")
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        body = self._read_body() or {}
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages/count_tokens"):
            self._record(body, "count_tokens")
            return self._json(200, {"input_tokens": 1000})
        if not path.endswith("/v1/messages"):
            self._record(body, "other")
            return self._json(404, {"type": "error", "error": {
                "type": "not_found_error", "message": "scripted server: " + self.path}})

        if is_main(body):
            with LOCK:
                idx = STATE["main"]
                STATE["main"] += 1
            script = self.server.script
            turn = script[idx] if idx < len(script) else {"text": "SCRIPT-EXHAUSTED"}
            agent = self.headers.get("x-claude-code-agent-id")
            n = self._record(body, "subagent" if agent else "main", idx)
        else:
            n = self._record(body, "side")
            turn = {"text": self.server.side_text}
        blocks, stop = build_blocks(turn, n)
        model = body.get("model", "claude-scripted")
        msg_id = "msg_scripted_%04d" % n
        usage = {"input_tokens": 10, "output_tokens": 5,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}

        if not body.get("stream"):
            return self._json(200, {"id": msg_id, "type": "message", "role": "assistant",
                                    "model": model, "content": blocks, "stop_reason": stop,
                                    "stop_sequence": None, "usage": usage})

        out = [sse("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": dict(usage, output_tokens=1)}})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                out.append(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": {"type": "text", "text": ""}}))
                out.append(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                       "delta": {"type": "text_delta", "text": b["text"]}}))
            else:
                out.append(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": {"type": "tool_use", "id": b["id"],
                                                                         "name": b["name"], "input": {}}}))
                out.append(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                       "delta": {"type": "input_json_delta",
                                                                 "partial_json": json.dumps(b["input"])}}))
            out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
        out.append(sse("message_delta", {"type": "message_delta",
                                         "delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": 5}}))
        out.append(sse("message_stop", {"type": "message_stop"}))
        data = b"".join(out)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("request-id", "req_scripted")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--side-text", default="Scripted side answer")
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    with open(a.script) as f:
        srv.script = json.load(f)
    srv.log_path = a.log
    srv.side_text = a.side_text
    port = srv.server_address[1]
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(port))
        import os
        os.replace(a.port_file + ".tmp", a.port_file)
    print("listening on %d" % port, file=sys.stderr, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
