#!/bin/bash
# Reproduces one full exploration run of the real Claude Code CLI against the scripted Messages
# API server (scripted_messages.py), with the recording plugin (plugin/), from a clean temp dir,
# then checks where every marker landed. Exit status 0 when all checks pass.
#
#   tests/claude/run-demo.sh [WORKDIR]        (default: a fresh mktemp -d)
#   MODEL= tests/claude/run-demo.sh          runs with the CLI's default model instead
#   SAVE_INPUTS=1 tests/claude/run-demo.sh    also copies one hook stdin per event to
#                                             tests/claude/captured-hook-inputs/
#
# Needs: `npm ci --prefix tests/claude`, python3, git. Fully offline: it can run inside
#   unshare -n sh -c 'ip link set lo up && tests/claude/run-demo.sh'
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
# The native binary of the platform package works even when npm skipped the postinstall that
# copies it over node_modules/.bin/claude (a shell stub then).
CLAUDE="$HERE/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
[ -x "$CLAUDE" ] || CLAUDE="$HERE/node_modules/.bin/claude"
W="${1:-$(mktemp -d /tmp/cc-demo.XXXXXX)}"
mkdir -p "$W"
W="$(cd "$W" && pwd)"
echo "workdir: $W"
mkdir -p "$W/home" "$W/repo" "$W/tmp" "$W/state/answers"
cp -r "$HERE/plugin" "$W/plugin"

# Hermetic HOME. Not required in -p mode (no onboarding or trust dialog is shown there), kept
# to be explicit.
cat > "$W/home/.claude.json" <<JSON
{"hasCompletedOnboarding": true, "projects": {"$W/repo": {"hasTrustDialogAccepted": true}}}
JSON

git -C "$W/repo" init -q -b main
git -C "$W/repo" -c user.email=t@t -c user.name=t commit -q --allow-empty -m init

# The script: one entry per conversation request (main loop and foreground subagent alike).
cat > "$W/script.json" <<'JSON'
[
  {"bash": "echo SHOULD-BE-DENIED", "description": "denied command"},
  {"bash": "echo hello > out.txt && cat out.txt", "description": "write out.txt"},
  {"tool": "TaskCreate", "input": {"subject": "write file", "description": "write a file", "activeForm": "Writing file"}},
  {"tool": "TaskUpdate", "input": {"taskId": "1", "status": "in_progress"}},
  {"tool": "TaskUpdate", "input": {"taskId": "1", "status": "completed"}},
  {"tool": "Agent", "input": {"description": "run echo", "prompt": "SUBAGENT-PROMPT run echo", "subagent_type": "general-purpose", "run_in_background": false}},
  {"bash": "echo from-subagent", "description": "subagent command"},
  {"text": "SUBAGENT-DONE"},
  {"text": "FIRST-ANSWER all done"},
  {"text": "SECOND-ANSWER after the block"},
  {"text": "RESUMED-ANSWER in the continued session"}
]
JSON

# Canned hook answers: answers/<event>.<k> for the k-th call, else answers/<event>.
A="$W/state/answers"
printf '%s' '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"CONTEXT-MARKER"},"systemMessage":"PERSON-MARKER"}' > "$A/session-start.1"
printf '%s' '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"CONTEXT-RESUME-MARKER"},"systemMessage":"PERSON-RESUME-MARKER"}' > "$A/session-start.2"
printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"DENY-MARKER"}}' > "$A/pre-tool-use.1"
printf '%s' '{"decision":"block","reason":"BLOCK-MARKER check output"}' > "$A/stop.1"
printf '%s' '{"systemMessage":"REPORT-MARKER"}' > "$A/stop.2"
printf '%s' '{}' > "$A/stop"

python3 "$HERE/scripted_messages.py" --script "$W/script.json" --log "$W/requests.jsonl" \
  --port-file "$W/port" 2> "$W/server.err" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$W/port" ] && break; sleep 0.1; done
PORT="$(cat "$W/port")"

run_claude() {
  ( cd "$W/repo" && env -i \
      PATH="/usr/local/bin:/usr/bin:/bin" \
      HOME="$W/home" \
      TMPDIR="$W/tmp" \
      TERM=dumb \
      IS_SANDBOX=1 \
      ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" \
      ANTHROPIC_API_KEY=sk-test \
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
      DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 \
      CC_HOOK_STATE="$W/state" \
      timeout 120 "$CLAUDE" "$@" < /dev/null )
}
# MODEL= (empty) leaves the CLI's default model (claude-opus-5-5 in 2.1.332), which changes
# the request layout (role "system" messages): see FINDINGS.md.
MODEL="${MODEL-claude-sonnet-4-5}"
FLAGS=(--dangerously-skip-permissions --output-format stream-json --verbose
       --plugin-dir "$W/plugin" --max-turns 20 ${MODEL:+--model "$MODEL"})

start=$(date +%s%N)
run_claude -p "Please write hello to out.txt" "${FLAGS[@]}" > "$W/run1.stdout.jsonl" 2> "$W/run1.stderr"
echo "run1 rc=$? $(( ($(date +%s%N) - start) / 1000000 )) ms"
start=$(date +%s%N)
run_claude --continue -p "Please continue" "${FLAGS[@]}" > "$W/run2.stdout.jsonl" 2> "$W/run2.stderr"
echo "run2 rc=$? $(( ($(date +%s%N) - start) / 1000000 )) ms"

python3 - "$W" "$HERE" "${SAVE_INPUTS:-}" <<'PY'
import json, os, shutil, sys
W, HERE, save = sys.argv[1], sys.argv[2], sys.argv[3]
reqs = [json.loads(l) for l in open(W + "/requests.jsonl")]
hooks = [json.loads(l) for l in open(W + "/state/hooks.jsonl")]
out1 = [json.loads(l) for l in open(W + "/run1.stdout.jsonl")]
out2 = [json.loads(l) for l in open(W + "/run2.stdout.jsonl")]
print("requests:")
for r in reqs:
    b = r.get("body") or {}
    print("  %2d %s %s kind=%s turn=%s model=%s msgs=%d agent=%s" % (
        r["n"], r["method"], r["path"], r["kind"], r["turn"], b.get("model"),
        len(b.get("messages") or []), r.get("agent_id")))
print("hooks:", " ".join("%s.%d" % (h["event"], h["k"]) for h in hooks))
fails = []
def check(cond, what):
    print("  %s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        fails.append(what)
def blocks(req):
    for m in req["body"]["messages"]:
        c = m["content"]
        for b in (c if isinstance(c, list) else [{"type": "text", "text": c}]):
            yield m["role"], b
main = [r for r in reqs if r["kind"] == "main"]
sub = [r for r in reqs if r["kind"] == "subagent"]
check(len(reqs) == 11 and len(main) == 9 and len(sub) == 2, "11 requests: 9 main, 2 subagent, no side requests")
first_user = main[0]["body"]["messages"][0]["content"]
check(first_user[0]["text"] == "<system-reminder>\nSessionStart hook additional context: CONTEXT-MARKER\n</system-reminder>",
      "CONTEXT-MARKER is the first text block of the first user message")
check(not any("PERSON-MARKER" in json.dumps(r["body"]) for r in reqs), "PERSON-MARKER never reaches the model")
deny = [b for r in main[1:2] for role, b in blocks(r) if b.get("type") == "tool_result" and b["tool_use_id"] == "toolu_0001"]
check(deny and deny[0]["is_error"] and deny[0]["content"].startswith("PreToolUse:Bash hook error: DENY-MARKER"),
      "DENY-MARKER comes back as an is_error tool_result 'PreToolUse:Bash hook error: DENY-MARKER'")
after_block = main[7]["body"]["messages"][-1]
texts = [b["text"] for b in after_block["content"]]
check(after_block["role"] == "user" and any("Stop hook feedback:\nBLOCK-MARKER check output" in t for t in texts),
      "BLOCK-MARKER comes back in a user message 'Stop hook feedback:' and the CLI continues by itself")
check(any(o.get("subtype") == "informational" and o.get("content") == "Stop says: REPORT-MARKER" for o in out1),
      "REPORT-MARKER is a stream-json system/informational line 'Stop says: REPORT-MARKER'")
check(any(o.get("subtype") == "hook_response" and "PERSON-MARKER" in o.get("stdout", "") for o in out1),
      "PERSON-MARKER only appears as the raw hook stdout in a system/hook_response line")
res1 = out1[-1]
check(res1.get("type") == "result" and res1.get("result") == "SECOND-ANSWER after the block", "run1 result is the last answer")
ss = [h for h in hooks if h["event"] == "session-start"]
check([h["input"]["source"] for h in ss] == ["startup", "resume"] and ss[0]["input"]["session_id"] == ss[1]["input"]["session_id"],
      "--continue sends SessionStart source=resume with the same session_id")
last = main[-1]["body"]["messages"]
check(any("CONTEXT-RESUME-MARKER" in b.get("text", "") for role, b in blocks(main[-1]))
      and len(last) > 10, "the resumed request carries the old conversation plus CONTEXT-RESUME-MARKER")
check(out2[-1].get("result") == "RESUMED-ANSWER in the continued session", "run2 result")
ev = [h["event"] for h in hooks]
check("subagent-stop" in ev and "task-completed" in ev, "SubagentStop and TaskCompleted fired")
check(os.path.exists(W + "/repo/out.txt"), "the Bash tool really ran in the repo")
if save:
    dst = os.path.join(HERE, "captured-hook-inputs")
    os.makedirs(dst, exist_ok=True)
    pick = {"session-start.json": ("session-start", 1), "session-start-resume.json": ("session-start", 2),
            "pre-tool-use.json": ("pre-tool-use", 1), "post-tool-use.json": ("post-tool-use", 1),
            "post-tool-use-agent.json": ("post-tool-use", 6), "stop.json": ("stop", 1),
            "stop-hook-active.json": ("stop", 2), "subagent-stop.json": ("subagent-stop", 1),
            "task-completed.json": ("task-completed", 1)}
    for name, (e, k) in pick.items():
        shutil.copy(os.path.join(W, "state", "inputs", "%s.%d.json" % (e, k)), os.path.join(dst, name))
    print("saved hook inputs to", dst)
print("FAILED: %d" % len(fails) if fails else "all checks passed")
sys.exit(1 if fails else 0)
PY
