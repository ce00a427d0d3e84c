#!/usr/bin/env python3
"""Write a <capture>.truth.json from the runner's OWN summary / structured output.

usage: truth.py KIND CAPTURE OUT RUNNER MODE PROJECT COLOR TOKENS [AUX]

KIND says where the failing-test names come from (never from Stanley's parser):
  pytest-summary  "short test summary info" FAILED/ERROR lines of CAPTURE (ANSI stripped)
  junit-xml       <testcase> elements with <failure>/<error> in AUX (an XML file)
  jest-json       assertionResults with status "failed" in AUX (jest --json output)
  vitest-json     same shape, vitest --reporter=json output; name is "file > describe > test"
  tap             "not ok" lines of AUX (node --test-reporter=tap), leaf tests only
  go-json         Action=="fail" events of AUX (go test -json), leaf tests only
  cargo-failures  the libtest "failures:" name lists of CAPTURE (all test binaries)
  nextest-summary the FAIL lines after "Summary [" in CAPTURE
  nextest-libtest "event":"failed" lines of CAPTURE (nextest --message-format libtest-json)

TOKENS is a JSON object {"leaf name": "token"}; a failure's token is that of the
longest key contained in its name.  Each token is checked to occur in the capture
(ANSI stripped) and, where the source gives per-failure messages, to occur in no
other failure's message.
"""
import html
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

ANSI = re.compile(r"\x1b[()][0-9A-Za-z]|\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")


def strip(s):
    return ANSI.sub("", s)


def read(p):
    with open(p, encoding="utf-8", errors="replace") as f:
        return f.read()


def pytest_summary(log, aux):
    text = strip(log).splitlines()
    names, in_sum = [], False
    for line in text:
        if re.match(r"^=+ short test summary info =+$", line):
            in_sum = True
            continue
        if in_sum:
            if line.startswith("="):
                break
            m = re.match(r"^(FAILED|ERROR) (\S+)", line)
            if m and m.group(2) not in names:
                names.append(m.group(2))
    # per-failure sections: "____ test_x[1-2] ____" / "___ ERROR at setup of test_y ___"
    sections, cur = {}, None
    for line in text:
        m = re.match(r"^_{3,} (.+?) _{3,}$", line)
        if m:
            cur = m.group(1)
            sections[cur] = ""
        elif re.match(r"^=+ .* =+$", line):
            cur = None
        elif cur:
            sections[cur] += line + "\n"
    return names, sections, []


def junit_xml(log, aux):
    root = ET.fromstring(read(aux))
    names, sections, classes = [], {}, {}
    for tc in root.iter("testcase"):
        bad = [c for c in tc if c.tag in ("failure", "error")]
        if not bad:
            continue
        name = tc.get("name")
        if name not in names:
            names.append(name)
            classes[name] = tc.get("classname")
        sections[name] = sections.get(name, "") + "".join(
            (c.get("message") or "") + (c.text or "") for c in bad)
    junit_xml.classes = classes
    # go (gotestsum): a parent test failing only because a t.Run subtest failed
    aggregates = [n for n in names if any(o.startswith(n + "/") for o in names)]
    return [n for n in names if n not in aggregates], sections, aggregates


def _jsonlike(aux, with_file):
    data = json.loads(read(aux))
    names, sections = [], {}
    for suite in data["testResults"]:
        rel = os.path.relpath(suite["name"])  # cwd is the project dir
        for a in suite["assertionResults"]:
            if a["status"] != "failed":
                continue
            parts = a["ancestorTitles"] + [a["title"]]
            name = (" > ".join([rel] + parts)) if with_file else " › ".join(parts)
            names.append(name)
            sections[name] = "\n".join(a.get("failureMessages") or [])
    return names, sections, []


def jest_json(log, aux):
    return _jsonlike(aux, False)


def vitest_json(log, aux):
    return _jsonlike(aux, True)


def tap(log, aux):
    lines = read(aux).splitlines()
    names, sections, aggregates = [], {}, []
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)not ok \d+ - (.*?)(\s+#.*)?$", lines[i])
        if not m:
            i += 1
            continue
        name = m.group(2)
        block = []
        j = i + 1
        if j < len(lines) and lines[j].strip() == "---":
            j += 1
            while j < len(lines) and lines[j].strip() != "...":
                block.append(lines[j])
                j += 1
        body = "\n".join(block)
        if "failureType: 'subtestsFailed'" in body:
            aggregates.append(name)
        else:
            names.append(name)
            sections[name] = body
        i = j + 1
    return names, sections, aggregates


def go_json(log, aux):
    failed, output = [], {}
    for line in read(aux).splitlines():
        if not line.startswith("{"):
            continue
        ev = json.loads(line)
        t = ev.get("Test")
        if not t:
            continue
        if ev.get("Action") == "output":
            output[t] = output.get(t, "") + ev.get("Output", "")
        elif ev.get("Action") == "fail" and t not in failed:
            failed.append(t)
    leaves = [t for t in failed if not any(o.startswith(t + "/") for o in failed)]
    aggregates = [t for t in failed if t not in leaves]
    return leaves, {t: output.get(t, "") for t in leaves}, aggregates


def cargo_failures(log, aux):
    text = strip(log).splitlines()
    names, sections, cur = [], {}, None
    for k, line in enumerate(text):
        m = re.match(r"^---- (\S+) stdout ----$", line)
        if m:
            cur = m.group(1)
            sections[cur] = ""
            continue
        if line == "failures:":
            cur = None
            for nxt in text[k + 1:]:
                m = re.match(r"^    (\S+)$", nxt)
                if not m:
                    break
                if m.group(1) not in names:
                    names.append(m.group(1))
            continue
        if cur:
            sections[cur] += line + "\n"
    return names, sections, []


def nextest_summary(log, aux):
    text = strip(log).splitlines()
    names, in_sum = [], False
    for line in text:
        if re.match(r"^\s*Summary \[", line):
            in_sum = True
            continue
        if in_sum:
            m = re.match(r"^\s*(FAIL|SIGSEGV|SIGABRT|TIMEOUT|LEAK-FAIL)\s+\[[^\]]*\]\s+(?:\(\d+/\d+\)\s+)?(.+?)\s*$", line)
            if m:
                names.append(m.group(2))
    # per-test output sections: "--- STDOUT: geom tests::x ---" / "--- STDERR: ..."
    sections, cur = {}, None
    for line in text:
        m = re.match(r"^\s*--- (?:STDOUT|STDERR):\s+(.+?) ---$", line)
        if m:
            cur = re.sub(r"^\(\d+/\d+\)\s+", "", m.group(1))
            sections.setdefault(cur, "")
        elif re.match(r"^\s*(PASS|FAIL|START|Summary|SIGABRT)\s", line):
            cur = None
        elif cur:
            sections[cur] += line + "\n"
    return names, sections, []


def nextest_libtest(log, aux):
    names, sections = [], {}
    for line in log.splitlines():
        if not line.startswith("{"):
            continue
        ev = json.loads(line)
        if ev.get("type") == "test" and ev.get("event") == "failed":
            names.append(ev["name"])
            sections[ev["name"]] = ev.get("stdout", "")
    return names, sections, []


def own_section(name, key):
    """Is section KEY (as headed in the log) the section of failure NAME?"""
    k = re.sub(r"^ERROR at \w+ of ", "", key)
    if k == name:
        return True
    k2 = k.replace(".", "::")  # pytest heads class methods "TestX.test_y"
    return name.endswith("::" + k2) or name.endswith(" " + k) or name.endswith("::" + k)


def main():
    kind, cap, out, runner, mode, project, color, tokens_path = sys.argv[1:9]
    aux = sys.argv[9] if len(sys.argv) > 9 else None
    log = read(cap)
    names, sections, aggregates = globals()[kind.replace("-", "_")](log, aux)
    tokens = json.loads(read(tokens_path))
    plain = strip(log)
    if kind == "junit-xml":
        plain = html.unescape(plain)  # the XML's own escaping (&amp; &apos;) is not the message
    failures, problems = [], []
    for n in names:
        keys = [k for k in tokens if k in n]
        if not keys:
            problems.append(f"no token key matches failure {n!r}")
            continue
        tok = tokens[max(keys, key=len)]
        if tok not in plain:
            problems.append(f"token {tok!r} of {n!r} not in capture")
        for other, body in sections.items():
            if not own_section(n, other) and tok in body:
                problems.append(f"token {tok!r} of {n!r} also in section {other!r}")
        entry = {"name": n, "token": tok}
        if kind == "junit-xml" and junit_xml.classes.get(n):
            entry["classname"] = junit_xml.classes[n]
        failures.append(entry)
    if not failures:
        problems.append("no failures found")
    truth = {"runner": runner, "mode": mode, "project": project,
             "color": color == "true", "failures": failures}
    if aggregates:
        truth["aggregate_failures"] = aggregates
    with open(out, "w") as f:
        json.dump(truth, f, indent=1, ensure_ascii=False)
        f.write("\n")
    for p in problems:
        print(f"truth.py: {os.path.basename(cap)}: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
