#!/usr/bin/env python3
"""Write a <capture>.truth.json from the runner's OWN summary / structured output.

usage: truth.py KIND CAPTURE OUT RUNNER MODE PROJECT COLOR TOKENS [AUX]

KIND says where the failing-test names come from (never from Stanley's parser):
  pytest-summary  "short test summary info" FAILED/ERROR lines of CAPTURE (ANSI stripped)
  junit-xml       <testcase> elements with <failure>/<error> in AUX (an XML file)
  qtest-junit     Qt Test's JUnit XML in AUX (`Suite::slot(tag)` names)
  eunit-surefire  EUnit's surefire XML in AUX (`mod: test` names)
  cmdtest-fail    cmdtest's `FAIL: name: reason` lines of CAPTURE, one failure per test
  tstyche         the `×` tests of TSTyche's tree in CAPTURE, named `scope ❭ title`, checked
                  against its `Tests: N failed`
  check-xml       <test result="failure|error"> elements of libcheck's XML log in AUX
  jest-json       assertionResults with status "failed" in AUX (jest --json output)
  vitest-json     same shape, vitest --reporter=json output; name is "file > describe > test"
  tap             "not ok" lines of AUX (node --test-reporter=tap), leaf tests only
  go-json         Action=="fail" events of AUX (go test -json), leaf tests only
  cargo-failures  the libtest "failures:" name lists of CAPTURE (all test binaries)
  nextest-summary the FAIL lines after "Summary [" in CAPTURE
  nextest-libtest "event":"failed" lines of CAPTURE (nextest --message-format libtest-json)
  libtest-json    same events, from cargo test -- -Z unstable-options --format json
  tap-flat        "not ok" points of AUX, a TAP stream (mocha, ava, bats, prove -v); leaves
                  are failures, parents of failing subtests (prove's subtest) aggregates
  tap-nodetap     node-tap (tap 21) TAP 14 of AUX: a failing (sub)test whose own
                  assertion points failed is a failure; one that failed only through
                  failing subtests (files, describe-like groups) is an aggregate
  mocha-json      "failures" of AUX (mocha --reporter json); name = fullTitle
  newman-json     run.failures of AUX (newman --reporters json); name = the test's name
  jasmine         the numbered "Failures:" list of CAPTURE
  uvu             the 'FAIL  suite  "test"' headers of CAPTURE
  unittest        the "FAIL:"/"ERROR:" headers of CAPTURE (python -m unittest, nose2)
  pytest-json     tests with outcome failed/error in AUX (pytest-json-report)
  behave          the "Failing scenarios:"/"Errored scenarios:" lists of CAPTURE
  behave-json     scenarios with status failed/error in AUX (behave -f json)
  prove           tap-flat over AUX (a prove -v run) plus the files that the
                  "Test Summary Report" of CAPTURE lists with no failed test number
                  (a script that died: "Bad plan", "Non-zero exit status")
  ctest           the "The following tests FAILED:" list of CAPTURE
  shunit2         the test names shunit2 prints as each starts, with an "ASSERT:" line
                  before the next (a failed assertion in that test)
  gtest           the "[  FAILED  ]" list of CAPTURE, plus a test that started
                  ("[ RUN      ]") and never finished because the binary died
  junit5-console  the "Failures (N):" list of CAPTURE (JUnit Platform console launcher)
  rspec           the "Failed examples:" list of CAPTURE
  rspec-json      examples with status "failed" in AUX (rspec --format json)
  minitest        the numbered "N) Failure:"/"N) Error:" headers of CAPTURE
  phpunit         the numbered lists under "There were N errors/failures:" of CAPTURE
  ptester         the `Test failed: FORM` records of CAPTURE (Common Lisp's ptester), named by
                  the form, checked against its `Errors detected in this test: N` lines
  aqa             the `FAILED:  "title"` records of CAPTURE (aqa, a Node.js runner), checked
                  against its `N tests failed.`
  wru             the sections of CAPTURE (wru, WebReflection's) whose verdict with counts is
                  `FAILURE` or `ERROR`, named by their title lines
  ivoire          the titles over `Traceback (most recent call last):` under Ivoire's `Errors:`
                  and `Failures:` headings in CAPTURE, checked against its summary
  rapidcheck      RapidCheck's `- property` lines over `Falsifiable after …` in CAPTURE, checked
                  against the properties that did not pass
  contexts        the `FAIL:`/`ERROR:` lines under each context's line of CAPTURE (contexts, a
                  Python BDD runner), and the contexts whose setup failed, checked against its
                  closing `…: 2 failed, 1 error`
  xlunit          the numbered `N) NAME: message` lists under "There were N failure:" of
                  CAPTURE (Common Lisp's xlunit), checked against its `Run: … Failures: …`
  not-a-report    a JSON document that is no test report: no failures, and that is the truth
  tcltest         the `==== name FAILED` line that closes each failed test's report in CAPTURE,
                  checked against the closing `Failed N` column
  dejagnu-sum     the "FAIL:" lines of AUX, the .sum file runtest writes
  supertape-jsonl the failures supertape's json-lines formatter writes to AUX (one object
                  per failed assertion, with its test's name)
  zig             the tests zig's runner counts as they start (`k/n name...`) with any verdict
                  but OK or SKIP (after the dots, or the `FAIL (…)` line under it), checked
                  against its closing `N failed.`

TOKENS is a JSON object {"leaf name": "token"}; a failure's token is that of the
longest key contained in its name.  A token may be {"*": token, "<mode>" or "<runner>:<mode>": token-or-null}
for a mode whose format words the failure differently or keeps no message at all (null:
the truth says "no_message": true and nothing is checked).  Each token is checked to occur in the capture
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


EXTRA = {}  # name -> extra fields for the truth entry (classname, file, suite, kind, ...)


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
    names, sections = [], {}
    for tc in root.iter("testcase"):
        bad = [c for c in tc if c.tag in ("failure", "error")]
        if not bad:
            continue
        name = tc.get("name")
        if name not in names:
            names.append(name)
            if tc.get("classname"):
                EXTRA.setdefault(name, {})["classname"] = tc.get("classname")
        sections[name] = sections.get(name, "") + "".join(
            (c.get("message") or "") + (c.text or "") for c in bad)
    # go (gotestsum): a parent test failing only because a t.Run subtest failed (deno: a
    # step, `parent > step`)
    aggregates = [n for n in names
                  if any(o.startswith(n + "/") or o.startswith(n + " > ") for o in names)]
    return [n for n in names if n not in aggregates], sections, aggregates


def qtest_junit(log, aux):
    """Qt Test's own JUnit XML (`-o file,junitxml`): a test is `Suite::slot()`, a data row's
    failure `Suite::slot(tag)` (the tag in the failure's attribute), as its text log names it."""
    root = ET.fromstring(read(aux))
    suite = root.get("name")
    names, sections = [], {}
    for tc in root.iter("testcase"):
        for c in tc:
            if c.tag not in ("failure", "error"):
                continue
            name = f"{suite}::{tc.get('name')}({c.get('tag') or ''})"
            if name not in names:
                names.append(name)
            sections[name] = sections.get(name, "") + (c.get("message") or "") + (c.text or "")
    return names, sections, []


def eunit_surefire(log, aux):
    """EUnit's surefire XML: a test `mod:LINE name` shown in the text log as `mod: name` (line 0,
    a named test function) or `mod:LINE: name` (a generated one)."""
    names, sections, aggregates = junit_xml(log, aux)
    shown = {}
    for n in names:
        mod, _, rest = n.partition(":")
        line, _, test = rest.partition(" ")
        shown[n] = f"{mod}: {test}" if line == "0" else f"{mod}:{line}: {test}"
    return [shown[n] for n in names], {shown.get(k, k): v for k, v in sections.items()}, aggregates


def cmdtest_fail(log, aux):
    """cmdtest's own `FAIL: name: reason` lines of CAPTURE: a test failed once however many of
    its checks did (stdout, stderr, exit code), its section the lines up to the next test's."""
    names, sections, cur = [], {}, None
    for line in strip(log).splitlines():
        m = re.match(r"^FAIL: ([\w.-]+): ", line)
        if m:
            cur = m.group(1)
            if cur not in names:
                names.append(cur)
        if cur:
            sections[cur] = sections.get(cur, "") + line + "\n"
    return names, sections, []


def tstyche(log, aux):
    """TSTyche's own tree of CAPTURE: each test marked `×`, named by its describe scopes and its
    title as the trailer under its report prints them (`scope ❭ title`), checked against the
    `Tests: N failed` line; its section the report its trailer closes."""
    text = strip(log)
    names, scopes = [], []
    for line in text.splitlines():
        m = re.match(r"^(\s*)(?:([+×]) )?(\S.*?)\s*$", line)
        if not m or not line.startswith("  ") or line.startswith("     "):
            if m and m.group(3).startswith(("Error:", "Targets:", "Tests:")):
                break
            continue
        depth = len(m.group(1)) // 2 - 1
        scopes = scopes[:depth]
        if m.group(2) == "×":
            names.append(" ❭ ".join(scopes + [m.group(3)]))
        elif m.group(2) is None:
            scopes.append(m.group(3))
    stated = re.search(r"^Tests:\s+(\d+) failed", text, re.M)
    if not stated or int(stated.group(1)) != len(names):
        sys.exit(f"tstyche: {len(names)} marked tests against {stated and stated.group(1)} stated")
    sections, start = {}, 0
    for n in names:
        at = text.find(f"❭ {n}", start)
        report = text.rfind("Error:", 0, at)
        sections[n] = text[report:at]
        start = at + 1
    return names, sections, []


def check_xml(log, aux):
    ns = "{http://check.sourceforge.net/ns}"
    root = ET.fromstring(read(aux))
    names, sections = [], {}
    for t in root.iter(ns + "test"):
        if t.get("result") in ("failure", "error"):
            name = t.find(ns + "id").text
            names.append(name)
            sections[name] = t.find(ns + "message").text or ""
    return names, sections, []


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
        m = re.match(r"^---- (.+?) stdout ----$", line)
        if m:
            cur = m.group(1)
            sections[cur] = ""
            continue
        if line == "failures:":
            cur = None
            for nxt in text[k + 1:]:
                m = re.match(r"^    (\S.*?)$", nxt)
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


def libtest_json(log, aux):
    return nextest_libtest(log, aux)


TAP_POINT = re.compile(r"^(\s*)(not ok|ok)\b(?:\s+(\d+))?(?:\s+-)?\s*(.*?)(?:\s+#\s*(?:SKIP|TODO|time=).*)?\s*$")


def _tap_points(text):
    """Test points of a TAP stream (any version, nested by indentation) with their bodies:
    the YAML block and comment/message lines that follow the point."""
    lines = strip(text).splitlines()
    points = []
    for k, line in enumerate(lines):
        m = TAP_POINT.match(line)
        if not m:
            continue
        indent = len(m.group(1).expandtabs())
        body = []
        for nxt in lines[k + 1:]:
            if TAP_POINT.match(nxt) or re.match(r"^\s*# Subtest", nxt):
                break
            ind = len(nxt) - len(nxt.lstrip())
            if nxt.strip() and ind < indent:
                break
            if re.match(r"^\s*1\.\.\d+", nxt) or re.match(r"^\s*# (tests|pass|fail)\b", nxt):
                break
            body.append(nxt)
        points.append({"indent": indent, "ok": m.group(2) == "ok", "name": m.group(4),
                       "body": "\n".join(body)})
    for k, p in enumerate(points):
        desc = []
        for q in reversed(points[:k]):
            if q["indent"] <= p["indent"]:
                break
            desc.append(q)
        if desc:
            top = min(q["indent"] for q in desc)
            p["children"] = [q for q in reversed(desc) if q["indent"] == top]
        else:
            p["children"] = []
    return points


def tap_flat(log, aux):
    names, sections, aggregates = [], {}, []
    for p in _tap_points(read(aux) if aux else log):
        if p["ok"]:
            continue
        if any(not c["ok"] for c in p["children"]):
            aggregates.append(p["name"])
            continue
        names.append(p["name"])
        sections[p["name"]] = p["body"]
    # A stream that bails out right under a `# name` heading says that test ended it.
    lines = (read(aux) if aux else log).splitlines()
    for k, line in enumerate(lines):
        if line.startswith("Bail out!") and k > 0 and lines[k - 1].startswith("# "):
            names.append(lines[k - 1][2:].strip())
    return names, sections, aggregates


def tap_nodetap(log, aux):
    names, sections, aggregates = [], {}, []
    points = _tap_points(read(aux) if aux else log)
    for p in points:
        if p["ok"] or not p["children"]:
            continue
        own = [c for c in p["children"] if not c["ok"] and not c["children"]]
        if own:
            names.append(p["name"])
            sections[p["name"]] = p["body"] + "\n" + "\n".join(c["name"] + "\n" + c["body"] for c in own)
        else:
            aggregates.append(p["name"])
    return names, sections, aggregates


def dejagnu_sum(log, aux):
    names = [l[len("FAIL: "):].strip() for l in read(aux).splitlines() if l.startswith("FAIL: ")]
    return names, {}, []


def supertape_jsonl(log, aux):
    names, sections = [], {}
    for line in read(aux).splitlines():
        event = json.loads(line)
        if "operator" not in event:
            continue  # progress and the closing counts
        name = event["test"]
        if name not in sections:
            names.append(name)
            sections[name] = ""
        sections[name] += json.dumps(event.get("message")) + "\n" + (event.get("errorStack") or "") + "\n" + (event.get("output") or "") + "\n"
    return names, sections, []


def mocha_json(log, aux):
    data = json.loads(read(aux))
    names, sections = [], {}
    for f in data["failures"]:
        names.append(f["fullTitle"])
        err = f.get("err") or {}
        sections[f["fullTitle"]] = (err.get("message") or "") + "\n" + (err.get("stack") or "")
    return names, sections, []


def newman_json(log, aux):
    # newman's --reporters json export: run.failures, each an assertion error with the test's
    # name and its message.
    data = json.loads(read(aux))
    names, sections = [], {}
    for f in data["run"]["failures"]:
        err = f["error"]
        names.append(err["test"])
        sections[err["test"]] = err.get("message") or ""
    return names, sections, []


def _numbered_blocks(lines, start, stop_re):
    """Blocks 'N) header' ... up to the next 'N) ' or a line matching stop_re."""
    blocks, cur = [], None
    for line in lines[start:]:
        if re.match(stop_re, line):
            break
        m = re.match(r"^\s*(\d+)\) (.+)$", line)
        if m:
            cur = [m.group(2), ""]
            blocks.append(cur)
        elif cur is not None:
            cur[1] += line + "\n"
    return blocks


def jasmine(log, aux):
    lines = strip(log).splitlines()
    start = lines.index("Failures:") + 1
    names, sections = [], {}
    for name, body in _numbered_blocks(lines, start, r"^(Pending:|\d+ specs?,)"):
        names.append(name)
        sections[name] = body
    return names, sections, []


def uvu(log, aux):
    names, sections, cur = [], {}, None
    for line in strip(log).splitlines():
        m = re.match(r'^\s*FAIL\s+(?:(\S.*?)\s+)?"(.+)"\s*$', line)
        if m:
            cur = m.group(2)
            names.append(cur)
            sections[cur] = ""
            if m.group(1):
                EXTRA[cur] = {"suite": m.group(1)}
        elif re.match(r"^\s*Total:\s", line) or re.match(r"^\S+\.m?js$", line.strip()) and not line.startswith(" "):
            cur = None
        elif cur:
            sections[cur] += line + "\n"
    return names, sections, []


def unittest(log, aux):
    """python -m unittest / nose2: '====\nFAIL: test_x (pkg.mod.Class.test_x) [(params)]\n----'."""
    names, sections, cur = [], {}, None
    for line in strip(log).splitlines():
        m = re.match(r"^(FAIL|ERROR): (.+?)\s*$", line)
        if m:
            head = m.group(2)
            h = re.match(r"^(\w+) \(([\w.]+)\)(.*)$", head)
            if h and h.group(2).endswith("." + h.group(1)):
                name = h.group(2) + h.group(3)          # tests.mod.Class.test_x[ (qty=3)]
            else:
                name = head                             # setUpClass (tests.mod.Class), _ErrorHolder
            cur = name
            names.append(name)
            sections[name] = ""
            EXTRA[name] = {"kind": m.group(1)}
        elif re.match(r"^=+$", line) or re.match(r"^Ran \d+ tests? in", line):
            cur = None
        elif cur:
            sections[cur] += line + "\n"
    return names, sections, []


def pytest_json(log, aux):
    data = json.loads(read(aux))
    names, sections = [], {}
    for t in data["tests"]:
        if t["outcome"] not in ("failed", "error"):
            continue
        names.append(t["nodeid"])
        EXTRA[t["nodeid"]] = {"outcome": t["outcome"]}
        sections[t["nodeid"]] = "\n".join(
            str((t.get(ph) or {}).get("longrepr", "")) for ph in ("setup", "call", "teardown"))
    return names, sections, []


def behave(log, aux):
    lines = strip(log).splitlines()
    names, kinds = [], {}
    mode = None
    for line in lines:
        if line in ("Failing scenarios:", "Errored scenarios:"):
            mode = line.split()[0].lower()
            continue
        if mode:
            m = re.match(r"^\s+(\S+:\d+)\s+(.+?)\s*$", line)
            if m:
                names.append(m.group(2))
                EXTRA[m.group(2)] = {"location": m.group(1), "status": "failed" if mode == "failing" else "error"}
            elif line.strip() == "" and names:
                continue
            else:
                mode = None
    # per-scenario sections of the pretty output: "  Scenario[ Outline]: NAME   # file:line"
    sections, cur = {}, None
    for line in lines:
        m = re.match(r"^\s*Scenario(?: Outline)?: (.+?)\s+# (\S+)$", line)
        if m:
            cur = m.group(1)
            sections.setdefault(cur, "")
        elif re.match(r"^(Failing|Errored) scenarios:|^Feature:", line):
            cur = None
        elif cur:
            sections[cur] += line + "\n"
    return names, sections, []


def behave_json(log, aux):
    names, sections = [], {}
    for feat in json.loads(read(aux)):
        for el in feat.get("elements", []):
            if el.get("type") != "scenario" or el.get("status") not in ("failed", "error"):
                continue
            names.append(el["name"])
            EXTRA[el["name"]] = {"location": el.get("location"), "status": el["status"]}
            sections[el["name"]] = json.dumps(el, ensure_ascii=False)
    return names, sections, []


def prove(log, aux):
    names, _, aggregates = tap_flat(log, aux)
    text = strip(log)
    # diagnostics: "#   Failed test 'NAME'" blocks (Test::More writes them to stderr)
    sections, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^\s*#\s+Failed test '(.+)'$", line)
        if m:
            cur = m.group(1)
            sections[cur] = ""
        elif cur and re.match(r"^\s*#", line):
            sections[cur] += line + "\n"
        else:
            cur = None
    # scripts that died: listed in the summary report with no "Failed test(s):" line
    report = text.split("Test Summary Report", 1)[-1]
    for m in re.finditer(r"^(\S+)\s+\(Wstat: [^\n]*\)\n((?:  .*\n?)*)", report, re.M):
        if "Failed test" not in m.group(2):
            names.append(m.group(1))
            EXTRA[m.group(1)] = {"file_level": True}
    return names, sections, aggregates


def ctest(log, aux):
    text = strip(log)
    names = []
    tail = text.split("The following tests FAILED:", 1)[1]
    for line in tail.splitlines()[1:]:
        m = re.match(r"^\s+\d+ - (.+?) \((.+)\)$", line)
        if not m:
            break
        names.append(m.group(1))
        EXTRA[m.group(1)] = {"ctest_status": m.group(2)}
    sections, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^\s*Start\s+\d+: (.+)$", line)
        if m:
            cur = m.group(1)
            sections[cur] = ""
        elif re.match(r"^\d+% tests passed", line):
            cur = None
        elif cur:
            sections[cur] += line + "\n"
    return names, sections, []


def tcltest(log, aux):
    names, sections, cur = [], {}, None
    for line in strip(log).splitlines():
        m = re.match(r"^==== (\S+) (.*)FAILED$", line)
        if m and not m.group(2):
            names.append(m.group(1))
            cur = None
        elif m:
            cur = m.group(1)
            sections[cur] = ""
        elif cur:
            sections[cur] += line + "\n"
        m = re.search(r"\tFailed\t(\d+)$", line)
        if m and int(m.group(1)) != len(names):
            sys.exit(f"tcltest says {m.group(1)} failed, {len(names)} read")
    return names, sections, []


def zig(log, aux):
    names, sections, cur = [], {}, None
    for line in strip(log).splitlines():
        m = re.match(r"^\d+/\d+ (.+?)\.\.\.(.*)$", line)
        if m:
            cur = m.group(1)
            sections[cur] = m.group(2) + "\n"
            if m.group(2).strip() not in ("OK", "SKIP"):
                names.append(cur)
            continue
        m = re.match(r"^\d+ passed; \d+ skipped; (\d+) failed\.$", line)
        if m:
            if int(m.group(1)) != len(names):
                sys.exit(f"zig says {m.group(1)} failed, {len(names)} read")
            cur = None
        elif cur:
            sections[cur] += line + "\n"
    return names, sections, []


def gtest(log, aux):
    lines = strip(log).splitlines()
    names, sections, cur, running = [], {}, None, None
    for line in lines:
        m = re.match(r"^\[ RUN      \] (\S+)$", line)
        if m:
            cur = running = m.group(1)
            sections[cur] = ""
            continue
        m = re.match(r"^\[\s+(OK|FAILED)\s+\] (\S+) \(\d+ ms\)$", line)
        if m:
            if m.group(1) == "FAILED" and m.group(2) not in names:
                names.append(m.group(2))
            cur = running = None
            continue
        if cur:
            sections[cur] += line + "\n"
    if running:  # the binary died inside this test: no result line, no summary
        names.append(running)
        EXTRA[running] = {"crashed": True}
    return names, sections, []


def shunit2(log, aux):
    """shunit2 prints each test function's name (`test…`) as it starts and every failed
    assertion (`ASSERT:…`) under it; a test with one failed."""
    names, sections, cur = [], {}, None
    for line in strip(log).splitlines():
        if re.match(r"^test\w+$", line):
            cur = line
            sections[cur] = ""
        elif re.match(r"^Ran \d+ tests?\.$", line):
            cur = None
        elif cur:
            sections[cur] += line + "\n"
            if line.startswith("ASSERT:") and cur not in names:
                names.append(cur)
    return names, sections, []


def junit5_console(log, aux):
    lines = strip(log).splitlines()
    start = next(k for k, l in enumerate(lines) if re.match(r"^Failures \(\d+\):$", l)) + 1
    names, sections, cur = [], {}, None
    for line in lines[start:]:
        m = re.match(r"^  JUnit Jupiter:(.+)$", line)
        if m:
            cur = m.group(1)
            names.append(cur)
            sections[cur] = ""
        elif re.match(r"^Test run finished", line):
            break
        elif cur:
            sections[cur] += line + "\n"
    return names, sections, []


def rspec(log, aux):
    lines = strip(log).splitlines()
    names = []
    for line in lines[lines.index("Failed examples:"):]:
        m = re.match(r"^rspec (\S+) # (.+)$", line)
        if m:
            names.append(m.group(2))
            EXTRA[m.group(2)] = {"location": m.group(1)}
    start = lines.index("Failures:") + 1
    sections = {}
    for name, body in _numbered_blocks(lines, start, r"^Finished in "):
        sections[name] = body
    return names, sections, []


def minitest(log, aux):
    text = strip(log)
    names, sections = [], {}
    parts = re.split(r"^\s+\d+\) (Failure|Error):\n", text, flags=re.M)
    for kind, block in zip(parts[1::2], parts[2::2]):
        m = re.match(r"^(\S+#.+?)(?: \[[^\]]*\])?:$", block.splitlines()[0])
        name = m.group(1)
        names.append(name)
        EXTRA[name] = {"kind": kind}
        sections[name] = block.split("\n\n")[0]
    return names, sections, []


def phpunit(log, aux):
    lines = strip(log).splitlines()
    names, sections = [], {}
    for k, line in enumerate(lines):
        m = re.match(r"^There (?:was|were) \d+ (error|failure|warning|risky test)s?:$", line)
        if not m:
            continue
        for name, body in _numbered_blocks(lines, k + 1, r"^(--$|There (was|were) |FAILURES!|ERRORS!|OK, but)"):
            # 'Class::test with data set "x" (args...)': the argument dump is dropped
            name = re.sub(r'( with data set (?:"[^"]*"|#\d+)) \(.*\)$', r"\1", name)
            names.append(name)
            EXTRA[name] = {"kind": m.group(1)}
            sections[name] = body
    return names, sections, []


def xlunit(log, aux):
    """xlunit's numbered lists under `There was 1 error:` / `There were 4 failure:` of CAPTURE,
    each `N) TEST-NAME: message` named by the word before its first colon, checked against the
    closing `Run: 7   Failures: 4   Errors: 1`."""
    lines = strip(log).splitlines()
    names, sections = [], {}
    for k, line in enumerate(lines):
        m = re.match(r"^There (?:was|were) \d+ (error|failure)s?:$", line)
        if not m:
            continue
        for header, body in _numbered_blocks(lines, k + 1, r"^(There (was|were) |FAILURES!!!)"):
            name, _, message = header.partition(": ")
            names.append(name)
            EXTRA[name] = {"kind": m.group(1)}
            sections[name] = message + "\n" + body
    run = re.search(r"^Run: \d+\s+Failures: (\d+)\s+Errors: (\d+)$", strip(log), re.M)
    if not run or len(names) != int(run.group(1)) + int(run.group(2)):
        sys.exit(f"xlunit: {len(names)} listed, the closing line says otherwise")
    return names, sections, []


def ptester(log, aux):
    """ptester's own records of CAPTURE: `Test failed: FORM` under each ` * * * UNEXPECTED TEST
    FAILURE * * *` banner, the form joined when it wraps, named by the form; checked against
    the sum of its `Errors detected in this test: N` lines."""
    lines = strip(log).splitlines()
    names, sections = [], {}
    for k, line in enumerate(lines):
        if not line.startswith("Test failed: "):
            continue
        form = [line[len("Test failed: "):].strip()]
        j = k + 1
        while j < len(lines) and lines[j].startswith("              "):
            form.append(lines[j].strip())
            j += 1
        name = " ".join(form)
        names.append(name)
        body = []
        while j < len(lines) and not lines[j].startswith((" * * *", "****")):
            body.append(lines[j])
            j += 1
        sections[name] = line + "\n" + "\n".join(body)
    want = sum(int(n) for n in re.findall(r"^Errors detected in this test: (\d+)", strip(log), re.M))
    if len(names) != want:
        sys.exit(f"ptester: {len(names)} records, its groups say {want}")
    return names, sections, []


def aqa(log, aux):
    """aqa's own records of CAPTURE: `FAILED:  "title"` over the place and the error, named by
    the title; checked against its closing `N tests failed.`"""
    text = strip(log)
    names = re.findall(r'^FAILED: +"(.*)"$', text, re.M)
    sections = {}
    lines = text.splitlines()
    for k, line in enumerate(lines):
        m = re.match(r'^FAILED: +"(.*)"$', line)
        if not m:
            continue
        body = []
        for rest in lines[k + 1:]:
            if rest.startswith("FAILED: "):
                break
            body.append(rest)
        sections[m.group(1)] = "\n".join(body)
    want = re.search(r"^ *(\d+) tests? failed\.", text, re.M)
    if not want or len(names) != int(want.group(1)):
        sys.exit(f"aqa: {len(names)} records, its summary says otherwise")
    return names, sections, []


def wru(log, aux):
    """wru's own report of CAPTURE: sections between dash rules, each a test's title, its failed
    assertions numbered, then its verdict with counts; a section whose verdict is `FAILURE` or
    `ERROR` is a failure named by its title, checked against the sum of the failing verdicts'
    `fails` and `errors` being at least one each."""
    lines = strip(log).splitlines()
    names, sections = [], {}
    rules = [k for k, l in enumerate(lines) if re.fullmatch(r"-{10,}", l.strip())]
    for a, b in zip(rules, rules[1:]):
        body = [l for l in lines[a + 1:b] if l.strip()]
        if len(body) < 2:
            continue
        verdict = re.match(r"^(FAILURE|ERROR|OK) passes: (\d+), fails: (\d+), errors: (\d+)$",
                           body[-1])
        if not verdict:
            continue
        failed = int(verdict.group(3)) + int(verdict.group(4))
        if (verdict.group(1) == "OK") != (failed == 0):
            sys.exit(f"wru: verdict {body[-1]!r} against its counts")
        if failed:
            names.append(body[0])
            sections[body[0]] = "\n".join(body[1:])
    if not names:
        sys.exit("wru: no failing section")
    return names, sections, []


def ivoire(log, aux):
    """Ivoire's own report of CAPTURE: under its `Errors:` and `Failures:` headings, each
    example's title alone over `Traceback (most recent call last):`, named by the title;
    checked against its closing `N examples, E errors, F failures`."""
    lines = strip(log).splitlines()
    names, sections = [], {}
    for k in range(1, len(lines)):
        if lines[k] != "Traceback (most recent call last):" or not lines[k - 1].strip():
            continue
        name = lines[k - 1].strip()
        names.append(name)
        body = []
        for rest in lines[k:]:
            if not rest.strip():
                break
            body.append(rest)
        sections[name] = "\n".join(body)
    m = re.search(r"^\d+ examples, (\d+) errors, (\d+) failures$", strip(log), re.M)
    if not m or len(names) != int(m.group(1)) + int(m.group(2)):
        sys.exit(f"ivoire: {len(names)} reports, its summary says otherwise")
    return names, sections, []


def rapidcheck(log, aux):
    """RapidCheck's own verdicts of CAPTURE: each property `- name` over its verdict line, a
    failure when that says `Falsifiable after …` (its message); checked against the properties
    that did not say `OK, passed`."""
    lines = strip(log).splitlines()
    names, sections, listed, passed = [], {}, 0, 0
    for k, line in enumerate(lines[:-1]):
        if not line.startswith("- "):
            continue
        listed += 1
        verdict = lines[k + 1]
        if verdict.startswith("OK, passed"):
            passed += 1
        elif verdict.startswith("Falsifiable"):
            name = line[2:].strip()
            names.append(name)
            body = []
            for rest in lines[k + 1:]:
                if rest.startswith("- ") or rest.startswith("Some of your RapidCheck"):
                    break
                body.append(rest)
            sections[name] = "\n".join(body)
    if not names or len(names) != listed - passed:
        sys.exit(f"rapidcheck: {len(names)} falsified of {listed} listed, {passed} passed")
    return names, sections, []


def contexts(log, aux):
    """contexts' own report of CAPTURE: under each context's line (`When a bill has a cap`), an
    indented `FAIL: name` or `ERROR: name` is a failure named `context › name`, and a traceback
    right under the context (its setup or action failed) is the context's own, named by it;
    checked against the closing `5 contexts, 5 assertions: 2 failed, 1 error` (its XML drops
    the contexts that failed before any assertion ran)."""
    lines = strip(log).splitlines()
    names, sections, context = [], {}, None
    for k, line in enumerate(lines):
        if re.match(r"^(When|Given|Since|After|Before|With|Without|If)\b", line):
            context = line.strip()
            nxt = lines[k + 1] if k + 1 < len(lines) else ""
            if nxt.strip().startswith("Traceback"):
                names.append(context)
                sections[context] = ""
            continue
        m = re.match(r"^  (FAIL|ERROR): (.+)$", line)
        if m and context:
            names.append(f"{context} › {m.group(2)}")
            sections[names[-1]] = ""
        elif names and line.startswith("  "):
            sections[names[-1]] += line + "\n"
    stated = re.search(r"assertions: (?:(\d+) failed)?(?:, )?(?:(\d+) errors?)?$", strip(log), re.M)
    want = sum(int(g) for g in stated.groups() if g) if stated else -1
    if len(names) != want:
        sys.exit(f"contexts: {len(names)} reported, the closing line says {want}")
    return names, sections, []


def rspec_json(log, aux):
    names, sections = [], {}
    for ex in json.loads(read(aux))["examples"]:
        if ex["status"] != "failed":
            continue
        names.append(ex["full_description"])
        EXTRA[ex["full_description"]] = {"location": "./" + ex["file_path"].lstrip("./") + ":" + str(ex["line_number"])}
        exc = ex.get("exception") or {}
        sections[ex["full_description"]] = (exc.get("class") or "") + "\n" + (exc.get("message") or "")
    return names, sections, []


def not_a_report(log, aux):
    json.loads(log)  # it is JSON all the same
    return [], {}, []


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
    tokens = json.loads(read(tokens_path)) if os.path.exists(tokens_path) else {}
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
        if isinstance(tok, dict):  # per-mode token: {"*": default, "<mode>": token or null}
            tok = tok.get(f"{runner}:{mode}", tok.get(mode, tok.get("*")))
        if tok is None:  # this format keeps no message for the failure (see README)
            failures.append(dict({"name": n, "token": None, "no_message": True}, **EXTRA.get(n, {})))
            continue
        if tok not in plain:
            problems.append(f"token {tok!r} of {n!r} not in capture")
        for other, body in sections.items():
            if not own_section(n, other) and tok in body:
                problems.append(f"token {tok!r} of {n!r} also in section {other!r}")
        entry = {"name": n, "token": tok}
        entry.update(EXTRA.get(n, {}))
        failures.append(entry)
    if not failures and kind != "not-a-report":
        problems.append("no failures found")
    truth = {"runner": runner, "mode": mode, "project": project,
             "color": color == "true", "failures": failures}
    if aggregates:
        truth["aggregate_failures"] = aggregates
    if kind == "not-a-report":
        truth["not_a_test_report"] = True
    with open(out, "w") as f:
        json.dump(truth, f, indent=1, ensure_ascii=False)
        f.write("\n")
    for p in problems:
        print(f"truth.py: {os.path.basename(cap)}: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
