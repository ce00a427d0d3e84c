import json, os, sys, time

event = sys.argv[1] if len(sys.argv) > 1 else "unknown"
state = os.environ.get("CC_HOOK_STATE") or os.path.join(os.environ.get("CLAUDE_PLUGIN_ROOT", "."), "state")
os.makedirs(os.path.join(state, "inputs"), exist_ok=True)
raw = sys.stdin.read()
try:
    data = json.loads(raw)
except ValueError:
    data = {"_raw": raw}
counter = os.path.join(state, "count." + event)
k = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
open(counter, "w").write(str(k))
env = {key: os.environ[key] for key in sorted(os.environ)
       if key.startswith("CLAUDE") or key in ("PWD", "HOME", "PATH")}
with open(os.path.join(state, "hooks.jsonl"), "a") as f:
    f.write(json.dumps({"t": time.time(), "event": event, "k": k, "argv": sys.argv[1:],
                        "cwd": os.getcwd(), "env": env, "input": data}) + "\n")
with open(os.path.join(state, "inputs", "%s.%d.json" % (event, k)), "w") as f:
    json.dump(data, f, indent=2)
answers = os.path.join(state, "answers")
ans, code = "", 0
for name in ("%s.%d" % (event, k), event):
    p = os.path.join(answers, name)
    if os.path.exists(p):
        ans = open(p).read()
        if os.path.exists(p + ".exit"):
            code = int(open(p + ".exit").read().strip() or 0)
        break
(sys.stderr if code else sys.stdout).write(ans)
sys.exit(code)
