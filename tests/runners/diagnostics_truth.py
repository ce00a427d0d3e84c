#!/usr/bin/env python3
"""Write <capture>.truth.json for a diagnostics capture from the tool's OWN structured output.

usage: diagnostics_truth.py KIND AUX CAPTURE OUT TOOL MODE

KIND: gcc-json (gcc -fdiagnostics-format=json), cargo-json (cargo --message-format=json),
eslint-json (eslint -f json), tsc-plain (tsc --pretty false, the tool's own one-line format),
cpplint-junit (cpplint --output=junit), clang-tidy-plain (clang-tidy's own error lines),
bandit-json, sqlfluff-json, htmlhint-json (each tool's JSON format), perlcritic-verbose
(perlcritic's own `%f:%l:%c:%m` format), black-diff (black's
--diff), file-list (a formatter's own list of the files it would change), biome-json (biome's
--reporter=json, its spans turned into lines by the source it carries), cfn-lint-json
(cfn-lint --format json), hlint-json (hlint --json), typos-json (typos --format json), pyrefly-json (pyrefly check --output-format json),
appstream-yaml (appstreamcli validate --format yaml), ecj-xml (ecj -log file.xml), mandoc-lint (mandoc -Tlint's own
`mandoc: file:line:col: LEVEL: message` lines), tryceratops-plain (tryceratops' own
`[CODE] message - path:line:col` rows, run wide so none wraps), j2lint-json (j2lint -j),
dotenv-plain (dotenv-linter's own `path:line CODE message` rows), oxlint-json (oxlint -f json), vfile-json (remark's --report json),
flawfinder-csv (flawfinder --csv: every hit at the level asked for is a finding), pyright-json
(pyright --outputjson), djlint-plain (djLint's own rows: a file's path, a rule, then `CODE
line:col message`; it has no structured output), elixir-plain (the Elixir compiler's own
`warning: message` over an indented `path:line`, and `** (Kind) path:line: message`; run with
--warnings-as-errors, a warning fails the build too), multi (several tools in one log: AUX lists
`KIND AUX` per line), solc-json (solc's standard JSON errors as JSON lines, from
diagnostics/ends/solc/truth.js), lesshint-json (lesshint's results through
diagnostics/ends/lesshint/json-reporter.js), gqllint-json (graphql-schema-linter --format json),
writegood-parse (write-good --parse: `path:line:col:message`; every suggestion fails the run),
dockerfilelint-json (dockerfilelint -j; every issue fails the run), prospector-json (prospector
--output-format json; every message fails the run), saltlint-json (salt-lint --json), vnu-json (the Nu Html Checker's --format json),
checkjsonschema-json (check-jsonschema -o json), redocly-json (redocly lint --format json), depcruise-json (dependency-cruiser -T json), terraform-json (terraform validate -json), vsg-json (VSG -js), jslint-jsonl (JSLint's API through diagnostics/ends/jslint/truth.mjs), ansiblelint-json
(ansible-lint -f codeclimate), thrift-plain (the Thrift compiler's own `[ERROR:path:line]` records, one per
file make says failed), rescript-plain (ReScript's own records, counted against the sources it did not
compile), swipl-plain (SWI-Prolog's own `ERROR:` records, one line or a place over the message),
gawk-lint (GNU awk's `--lint` records, warnings and fatal errors, a note on the input or none),
flatc-plain (flatc's `error:` over an indented `path:line: col: error:` record), blint-plain (B::Lint's
`message at PATH line N`), fasm-plain (fasm's `PATH [N]:` over `error: message.`), byacc-plain (byacc's
`e|w - line N of "PATH", message`), bpmnlint-jsonl (bpmnlint's reports through
diagnostics/ends/bpmnlint/truth.js, a failure per error named `DIAGRAM: ELEMENT-ID`, no line), tmgrammar-xunit (vscode-tmgrammar-test's --xunit-report files inside one `<all>`
element, a failure per `<failure>` named by its test case `FILE:LINE`), iasl-plain (iasl's source echo over `Error CODE - ^ message`), sassc-plain (LibSass's message over
`on line N:C of PATH`), xsltproc-plain (xsltproc's `compilation error: file PATH line N element E` over its message), xa-plain
(xa's `PATH:line N: ADDR:message` records), smlnj-plain (SML/NJ's
`path:line.col-line.col Error:` and `Warning:` records),
jscs-json (JSCS's --reporter json), detectsecrets-json
(detect-secrets scan), gitlint-plain (gitlint's own\n`Commit <id>:` headings over `N: CODE message` rows; AUX is the output, then `---exit N`).
Each ERROR is a failure named `path:line` (the path as the plain output prints it); its token
is the first 24 characters of its message (its place as printed when another error's message starts
alike), checked to occur in CAPTURE.
"""
import json
import os
import re
import sys

kind, aux, capture, out, tool, mode = sys.argv[1:7]
if kind == "multi":
    # Several tools in one log (a task runner's): AUX lists `KIND AUX` per line, each tool's
    # own structured output; their errors together are the truth.
    import subprocess
    import tempfile
    merged = None
    for row in open(aux).read().splitlines():
        part_kind, part_aux = row.split(" ", 1)
        with tempfile.NamedTemporaryFile(suffix=".json") as part:
            done = subprocess.run([sys.executable, os.path.abspath(__file__), part_kind, part_aux,
                                   capture, part.name, tool, mode])
            if done.returncode != 0:
                sys.exit(done.returncode)
            one = json.load(open(part.name))
        if merged is None:
            merged = one
        else:
            merged["failures"] += one["failures"]
    json.dump(merged, open(out, "w"), indent=1)
    sys.exit(0)
failures = []
text = open(aux).read() if aux != "-" else ""
if kind == "gcc-json":
    for d in json.loads(text):
        if d["kind"] == "error":
            loc = d["locations"][0]["caret"]
            failures.append((f'{loc["file"]}:{loc["line"]}', d["message"],
                             f'{loc["file"]}:{loc["line"]}:{loc["column"]}'))
elif kind == "cargo-json":
    for line in text.splitlines():
        m = json.loads(line)
        if m.get("reason") != "compiler-message":
            continue
        d = m["message"]
        if d["level"] != "error" or not d["spans"]:
            continue
        span = next(s for s in d["spans"] if s["is_primary"])
        failures.append((f'{span["file_name"]}:{span["line_start"]}', d["message"],
                         f'{span["file_name"]}:{span["line_start"]}:{span["column_start"]}'))
elif kind == "cpplint-junit":
    # cpplint --output=junit: a <testcase> per file, its <failure> a line per finding
    # (`line: message [category/rule] [confidence]`); every finding fails the run.
    import xml.etree.ElementTree as ET
    for case in ET.fromstring(text).iter("testcase"):
        for failure in case.iter("failure"):
            for row in (failure.text or "").splitlines():
                number, _, message = row.partition(": ")
                if number.strip().isdigit():
                    message = re.sub(r"\s*\[[^\]]+\]\s*\[\d+\]$", "", message)
                    # Two findings can share a line: the place and the message's start
                    # together, as the plain output prints them, tell them apart.
                    failures.append((f'{case.get("name")}:{number.strip()}', message,
                                     f'{case.get("name")}:{number.strip()}:  {message[:16]}'))
elif kind == "eslint-json":
    for f in json.loads(text):
        for m in f["messages"]:
            if m["severity"] == 2:
                failures.append((f'{f["filePath"]}:{m["line"]}', m["message"],
                                 f'{m["line"]}:{m["column"]}'))
elif kind == "tsc-plain":
    for line in text.splitlines():
        m = re.match(r"^(\S+)\((\d+),(\d+)\): error (TS\d+): (.*)$", line)
        if m:
            path, row, col = m.group(1), m.group(2), m.group(3)
            # The place as this capture prints it: `a.ts(4,7)` plain, `a.ts:4:7` pretty.
            locator = f"{path}:{row}:{col}" if mode == "pretty" else f"{path}({row},{col})"
            failures.append((f"{path}:{row}", m.group(5), locator))
elif kind == "clang-tidy-plain":
    # clang-tidy's own one-line form: `path:line:col: error: message [check,-warnings-as-errors]`
    # (its notes explain an error and fail nothing).
    for line in text.splitlines():
        m = re.match(r"^(\S+):(\d+):(\d+): error: (.*?) \[[^\]]+\]$", line)
        if m:
            path, row, col = m.group(1), m.group(2), m.group(3)
            failures.append((f"{path}:{row}", m.group(4), f"{path}:{row}:{col}"))
elif kind == "bandit-json":
    # bandit -f json: every result fails the run; the place as its plain output prints it.
    for r in json.loads(text)["results"]:
        failures.append((f'{r["filename"]}:{r["line_number"]}', r["issue_text"],
                         f'Location: {r["filename"]}:{r["line_number"]}:{r["col_offset"]}'))
elif kind == "sqlfluff-json":
    # sqlfluff lint --format json: a violation per rule and place.
    for f in json.loads(text):
        for v in f["violations"]:
            failures.append((f'{f["filepath"]}:{v["start_line_no"]}', v["description"],
                             f'L:{v["start_line_no"]:>4} | P:{v["start_line_pos"]:>4}'))
elif kind == "htmlhint-json":
    # htmlhint --format json: a message per rule and place (errors and warnings both fail).
    for f in json.loads(text):
        for m in f["messages"]:
            failures.append((f'{f["file"]}:{m["line"]}', m["message"], f'L{m["line"]} |'))
elif kind == "perlcritic-verbose":
    # perlcritic --verbose '%f:%l:%c:%m\n': every violation at the chosen severity fails.
    for line in text.splitlines():
        path, row, col, message = line.split(":", 3)
        # The plain line up to its place tells two alike findings in two files apart.
        failures.append((f"{path}:{row}", message,
                         f"{path}: {message} at line {row}, column {col}."))
elif kind == "black-diff":
    # black --diff -q: a unified diff per file it would change, headed `--- path\t(stamp)`.
    for line in text.splitlines():
        if line.startswith("--- "):
            path = line[4:].split("\t")[0].strip()
            failures.append((path, path, path))
elif kind == "file-list":
    # A formatter's own list of the files it would change (`prettier -l`): each file a
    # failure named by its path, its token the path.
    for line in text.splitlines():
        path = line.strip().removeprefix("would reformat ").strip()
        if path:
            failures.append((path, path, path))
elif kind == "biome-json":
    # biome lint --reporter=json: each error (a warning beside errors is no failure), its span
    # a byte offset into the source the report carries.
    for d in json.loads(text)["diagnostics"]:
        if d["severity"] != "error":
            continue
        loc = d["location"]
        row = loc["sourceCode"].encode()[: loc["span"][0]].count(b"\n") + 1
        path = loc["path"]["file"]
        failures.append((f"{path}:{row}", d["description"], f"{path}:{row}:"))
elif kind == "cfn-lint-json":
    # cfn-lint --format json: every match fails the run (warnings too: exit 4).
    for m in json.loads(text):
        start = m["Location"]["Start"]
        failures.append((f'{m["Filename"]}:{start["LineNumber"]}', m["Message"],
                         f'{m["Filename"]}:{start["LineNumber"]}:{start["ColumnNumber"]}'))
elif kind == "hlint-json":
    # hlint --json: every hint fails the run (hlint exits 1); the place as the plain output
    # prints it, with the start of its column range.
    for h in json.loads(text):
        path = h["file"].removeprefix("./")
        failures.append((f'{path}:{h["startLine"]}', h["hint"],
                         f'{path}:{h["startLine"]}:{h["startColumn"]}-'))
elif kind == "typos-json":
    # typos --format json: each misspelling fails the run; its message names the word.
    for line in text.splitlines():
        t = json.loads(line)
        if t.get("type") != "typo":
            continue
        failures.append((f'{t["path"]}:{t["line_num"]}', f'`{t["typo"]}` should be',
                         f'{t["path"]}:{t["line_num"]}:{t["byte_offset"] + 1}'))
elif kind == "pyrefly-json":
    # pyrefly check --output-format json: each error fails the check.
    for e in json.loads(text)["errors"]:
        if e.get("severity", "error") != "error":
            continue
        failures.append((f'{e["path"]}:{e["line"]}', e["description"],
                         f'{e["path"]}:{e["line"]}:{e["column"]}'))
elif kind == "appstream-yaml":
    # appstreamcli validate --format yaml: each issue's tag, severity, component and line.
    issue = {}
    def flush():
        if issue.get("severity") == "error" and "line" in issue:
            place = f'{issue["component"]}:{issue["line"]}'
            message = f'{issue["tag"]} {issue.get("hint", "")}'.strip()
            failures.append((place, message, f'{place}: {issue["tag"]}'))
    for line in text.splitlines():
        m = re.match(r"^(- )?\s*(tag|severity|component|line|hint): (.*)$", line)
        if not m:
            continue
        if m.group(1):
            flush()
            issue = {}
        issue[m.group(2)] = m.group(3).strip()
    flush()
elif kind == "ecj-xml":
    # ecj -log file.xml: each source's problems with their severity, line and message.
    import xml.etree.ElementTree as ET
    for source in ET.fromstring(text).iter("source"):
        path = source.get("path")
        for problem in source.iter("problem"):
            if problem.get("severity") == "ERROR":
                line = problem.get("line")
                message = problem.find("message").get("value")
                failures.append((f"{path}:{line}", message, f"{path} (at line {line})"))
elif kind == "mandoc-lint":
    # mandoc -Tlint: `mandoc: file:line:col: LEVEL: message`, the tool's own one-line format.
    for line in text.splitlines():
        m = re.match(r"^mandoc: ([^:]+):(\d+):(\d+): (\w+): (.*)$", line)
        if m and m.group(4) in ("ERROR", "UNSUPP", "BADARG"):
            failures.append((f"{m.group(1)}:{m.group(2)}", m.group(5),
                             f"{m.group(1)}:{m.group(2)}:{m.group(3)}"))
elif kind == "tryceratops-plain":
    # tryceratops' own one-line format, run wide enough that no row wraps:
    # `[TRY200] message - path:line:col`.
    for line in text.splitlines():
        m = re.match(r"^\[(TRY\d+)\] (.*) - ([^ ]+):(\d+):(\d+)$", line)
        if m:
            failures.append((f"{m.group(3)}:{m.group(4)}", m.group(2),
                             f"{m.group(3)}:{m.group(4)}:{m.group(5)}"))
elif kind == "j2lint-json":
    for d in json.loads(text)["ERRORS"]:
        failures.append((f'{d["filename"]}:{d["line_number"]}', d["message"],
                         f'{d["filename"]}:{d["line_number"]}'))
elif kind == "oxlint-json":
    for d in json.loads(text)["diagnostics"]:
        if d["severity"] == "error" and d.get("labels"):
            span = d["labels"][0]["span"]
            failures.append((f'{d["filename"]}:{span["line"]}', d["message"],
                             f'{d["filename"]}:{span["line"]}:{span["column"]}'))
elif kind == "flawfinder-csv":
    import csv
    for row in csv.DictReader(text.splitlines()):
        failures.append((f'{row["File"]}:{row["Line"]}', row["Warning"],
                         f'{row["File"]}:{row["Line"]}:  [{row["Level"]}] ({row["Category"]}) {row["Name"]}:'))
elif kind == "gqllint-json":
    # graphql-schema-linter --format json: every error fails the run; two at one place that
    # start alike are told apart by their whole message.
    for d in json.loads(text)["errors"]:
        loc = d["location"]
        failures.append((f'{loc["file"]}:{loc["line"]}', d["message"], d["message"]))
elif kind == "lesshint-json":
    # lesshint's own results through a JSON reporter module (diagnostics/ends/lesshint/
    # json-reporter.js): each error-severity result, placed as its rows print it.
    for d in json.loads(text):
        if d["severity"] == "error":
            failures.append((f'{d["file"]}:{d["line"]}', d["message"],
                             f'{d["file"]}: line {d["line"]}, col {d["column"]}'))
elif kind == "solc-json":
    # solc's standard JSON, each error as a JSON line with its file, line and message
    # (diagnostics/ends/solc/truth.js); warnings fail nothing.
    for line in text.splitlines():
        d = json.loads(line)
        if d["severity"] == "error":
            failures.append((f'{d["file"]}:{d["line"]}', d["message"], f'{d["file"]}:{d["line"]}:'))
elif kind == "pyright-json":
    for d in json.loads(text)["generalDiagnostics"]:
        if d["severity"] == "error":
            start = d["range"]["start"]
            failures.append((f'{d["file"]}:{start["line"] + 1}', d["message"].splitlines()[0],
                             f'{d["file"]}:{start["line"] + 1}:{start["character"] + 1}'))
elif kind == "djlint-plain":
    path = None
    for line in text.splitlines():
        m = re.match(r"^([A-Z]+\d+) (\d+):(\d+) (.*)$", line)
        if m and path:
            failures.append((f"{path}:{m.group(2)}", m.group(4),
                             f"{m.group(1)} {m.group(2)}:{m.group(3)} "))
        elif line.strip() and not line.startswith(("Linting", "Linted")) and "\u2500" not in line \
                and " " not in line.strip():
            path = line.strip()
elif kind == "elixir-plain":
    lines = text.splitlines()
    for k, line in enumerate(lines):
        m = re.match(r"^\*\* \((\w+)\) (\S+?):(\d+): (.*)$", line)
        if m:
            failures.append((f"{m.group(2)}:{m.group(3)}", m.group(4), f"{m.group(2)}:{m.group(3)}"))
        elif line.startswith("warning: ") and k + 1 < len(lines):
            p = re.match(r"^  (\S+?):(\d+)(: .*)?$", lines[k + 1])
            if p:
                failures.append((f"{p.group(1)}:{p.group(2)}", line[len("warning: "):],
                                 f"{p.group(1)}:{p.group(2)}"))
elif kind == "vfile-json":
    # remark's `--report json` (vfile-reporter-json): a fatal message is an error.
    for f in json.loads(text):
        for m in f["messages"]:
            if m.get("fatal"):
                failures.append((f'{f["path"]}:{m["line"]}', m["reason"],
                                 f'{m["line"]}:{m["column"]}'))
elif kind == "dotenv-plain":
    # dotenv-linter's own one-line format: `path:line CODE message`.
    for line in text.splitlines():
        m = re.match(r"^([^ ]+):(\d+) (\d+) (.*)$", line)
        if m:
            failures.append((f"{m.group(1)}:{m.group(2)}", m.group(4), f"{m.group(1)}:{m.group(2)}"))
elif kind == "writegood-parse":
    # write-good --parse: one `path:line:col:message` line per suggestion.
    for line in text.splitlines():
        m = re.match(r"^([^:]+):(\d+):(\d+):(.*)$", line)
        if m:
            # Its place as printed is in words after the message (`… on line 4`).
            failures.append((f"{m.group(1)}:{m.group(2)}", m.group(4),
                             f"{m.group(4)} on line {m.group(2)}"))
elif kind == "dockerfilelint-json":
    # dockerfilelint -j: each file's issues, each with its line, the line's content and a
    # description (the message); told apart by the line as printed (`Line 3: RUN …`).
    for f in json.loads(text)["files"]:
        for issue in f["issues"]:
            failures.append((f'{f["file"]}:{issue["line"]}', issue["description"],
                             f'Line {issue["line"]}: {issue["content"]}'))
elif kind == "prospector-json":
    # prospector --output-format json: every message of every tool it ran fails the run; told
    # apart by its row as the grouped format prints it (`tool: code / message`).
    for m in json.loads(text)["messages"]:
        loc = m["location"]
        failures.append((f'{loc["path"]}:{loc["line"]}', m["message"],
                         f'{m["source"]}: {m["code"]} / {m["message"]}'))
elif kind == "saltlint-json":
    # salt-lint --json: every match fails the run; told apart by its rule as the plain output
    # prints it (`[207] message`; several rules may match one line).
    for m in json.loads(text):
        failures.append((f'{m["filename"]}:{m["linenumber"]}', m["message"],
                         f'[{m["id"]}] {m["message"]}'))
elif kind == "vnu-json":
    # the Nu Html Checker's --format json: every message of type error fails the run, at its
    # first line (its last when it spans one); told apart by its range as the GNU format prints
    # it (`":6.27-6.45: error:`).
    for m in json.loads(text)["messages"]:
        if m.get("type") != "error" or "lastLine" not in m:
            continue
        path = m["url"].removeprefix("file:")
        first = m.get("firstLine", m["lastLine"])
        failures.append((f"{path}:{first}", m["message"],
                         f'":{first}.{m["firstColumn"]}-{m["lastLine"]}.{m["lastColumn"]}: error:'))
elif kind == "checkjsonschema-json":
    # check-jsonschema -o json: every error fails the run, at a place in the document that has
    # no line (`data/a.yaml::$.ports[0].port`, as its text output prints it); told apart by
    # that place and the message's start.
    for e in json.loads(text)["errors"]:
        place = f'{e["filename"]}::{e["path"]}'
        failures.append((place, e["message"], f'{place}: {e["message"][:20]}'))
elif kind == "redocly-json":
    # redocly lint --format json: every problem of severity error fails the run, at its first
    # location's start; told apart by its numbered header's place and pointer, to the line's end
    # (one pointer can start another's: `#/paths/~1a/get`, `#/paths/~1a/get/summary`).
    for p in json.loads(text)["problems"]:
        if p["severity"] != "error":
            continue
        loc = p["location"][0]
        start = loc["start"]
        failures.append((f'{loc["source"]["ref"]}:{start["line"]}', p["message"],
                         f'{loc["source"]["ref"]}:{start["line"]}:{start["col"]} at {loc["pointer"]}\n'))
elif kind == "depcruise-json":
    # dependency-cruiser -T json: every violation of severity error fails the run, about a
    # module as a whole (no line): named by the module it is from, told apart by its rule and
    # the edge as the text output prints it (`no-ui-to-db: src/ui/page.js → src/db/store.js`;
    # a cycle's first step only, its path goes on over the next lines).
    for v in json.loads(text)["summary"]["violations"]:
        if v["rule"]["severity"] != "error":
            continue
        edge = f'{v["rule"]["name"]}: {v["from"]} → {v["to"]}'
        failures.append((v["from"], edge, edge))
elif kind == "terraform-json":
    # terraform validate -json: every diagnostic of severity error fails the run, at its range's
    # start; told apart by its place in words as the text output prints it.
    for d in json.loads(text)["diagnostics"]:
        if d["severity"] != "error":
            continue
        r = d["range"]
        failures.append((f'{r["filename"]}:{r["start"]["line"]}', d["summary"],
                         f'on {r["filename"]} line {r["start"]["line"]},'))
elif kind == "vsg-json":
    # VSG's -js output: every violation of severity Error fails the run; told apart, when two
    # say the same, by its row as the table prints it (the rule and the line in their cells).
    shown_rows = [l.strip() for l in open(capture, errors="replace").read().splitlines()]
    for f in json.loads(text)["files"]:
        for v in f["violations"]:
            if v["severity"].lower() != "error":
                continue
            row = next((r for r in shown_rows
                        if re.match(rf'{re.escape(v["rule"])}\s*\|\s*\w+\s*\|\s*{v["linenumber"]}\s*\|', r)), v["solution"])
            failures.append((f'{f["file_path"]}:{v["linenumber"]}', v["solution"], row))
elif kind == "jslint-jsonl":
    # JSLint's own API (diagnostics/ends/jslint/truth.mjs), a warning per JSON line: every
    # warning fails the run; told apart by its place as the CLI prints it after the message.
    for line in text.splitlines():
        w = json.loads(line)
        failures.append((f'{w["file"]}:{w["line"]}', w["message"],
                         f'// line {w["line"]}, column {w["column"]}'))
elif kind == "detectsecrets-json":
    # detect-secrets scan: every result fails the hook; told apart by its `Location:` field as
    # the hook prints it.
    for path, results in sorted(json.loads(text)["results"].items()):
        for r in results:
            failures.append((f'{path}:{r["line_number"]}', r["type"],
                             f'Location:    {path}:{r["line_number"]}'))
elif kind == "ansiblelint-json":
    # ansible-lint -f codeclimate: every violation above `minor` (a warning) fails the run;
    # told apart, when two say the same, by its message's end and the place line under it as
    # the default format prints them (several violations share a place).
    shown_lines = re.sub(r"\x1b\[[0-9;]*m|\x1b\]8;;[^\x1b]*\x1b\\", "",
                         open(capture, errors="replace").read()).splitlines()
    for v in json.loads(text):
        if v["severity"] in ("minor", "info"):
            continue
        loc = v["location"]
        line = loc["lines"]["begin"] if "lines" in loc else loc["positions"]["begin"]["line"]
        place = re.compile(rf'{re.escape(loc["path"])}:{line}(:\d+)?( |$)')
        under = next((b for a, b in zip(shown_lines, shown_lines[1:])
                      if a.endswith(v["description"]) and place.match(b)), f'{loc["path"]}:{line}')
        failures.append((f'{loc["path"]}:{line}', v["description"],
                         f'{v["description"][-16:]}\n{under}'))
elif kind == "thrift-plain":
    # The Thrift compiler has no structured output: its own records, `[ERROR:path:line] text`
    # (the text a hint in parentheses, the message on the next line) or `[FAILURE:path:line]
    # message`, the first of each file it failed on a failure named `path:line`; their count
    # is checked against make's (`make: *** [Makefile:5: a.gen] Error 1`).
    rows = open(capture, errors="replace").read().splitlines()
    failed = set()
    for k, line in enumerate(rows):
        m = re.match(r"^\[(ERROR|FAILURE):(.+):(\d+)\] (.*)$", line)
        if not m or m.group(2) in failed:
            continue
        failed.add(m.group(2))
        message = m.group(4)
        if re.fullmatch(r"\(.*\)", message.strip()):
            message = rows[k + 1]
        failures.append((f"{m.group(2)}:{m.group(3)}", message, message))
    made = sum(1 for l in rows if re.match(r"^make: \*\*\* \[.*\] Error \d+$", l))
    if len(failures) != made:
        sys.exit(f"thrift: {len(failures)} files' records read, make failed {made}")
elif kind == "rescript-plain":
    # The ReScript compiler has no structured output: its own records, `We've found a bug for
    # you!` over the place alone (`/p/src/A.res:3:29-41`), a code frame, then the message; a
    # failure each, named `path:line`. Their count is checked against the sources it wrote no
    # JavaScript for (AUX: their number, counted by the capture).
    rows = re.sub(r"\x1b\[[0-9;]*[mK]", "", open(capture, errors="replace").read()).splitlines()
    for k, line in enumerate(rows):
        if line.strip() != "We've found a bug for you!":
            continue
        m = re.match(r"^\s*(\S+):(\d+):", rows[k + 1])
        after = []
        for r in rows[k + 2:]:
            if r.strip() == "We've found a bug for you!" or r.strip().startswith("Warning number"):
                break
            after.append(r.strip())
        framed = [j for j, r in enumerate(after) if re.match(r"^(\d+ )?[│┆]", r)]
        message = next(r for r in after[framed[-1] + 1:] if r)
        failures.append((f"{m.group(1)}:{m.group(2)}", message, message))
    if len(failures) != int(text.strip()):
        sys.exit(f"rescript: {len(failures)} records read, {text.strip()} sources not compiled")
elif kind == "swipl-plain":
    # SWI-Prolog has no structured output for its load errors: its own records, `ERROR:
    # path:line:col: message` on one line, or `ERROR: path:line:` over `ERROR:    message`, a
    # failure each (its warnings, `Warning:` records, are not); checked against its ERROR
    # records that give a place.
    rows = open(capture, errors="replace").read().splitlines()
    for k, line in enumerate(rows):
        m = re.match(r"^ERROR: (\S+?):(\d+):(?:\d+:)?(.*)$", line)
        if not m:
            continue
        message = m.group(3).strip() or rows[k + 1].removeprefix("ERROR:").strip()
        failures.append((f"{m.group(1)}:{m.group(2)}", message, message))
    if len(failures) != sum(1 for l in rows if re.match(r"^ERROR: /", l)):
        sys.exit("swipl: an ERROR record without a place")
elif kind == "gawk-lint":
    # GNU awk's --lint has no structured output: its own records, `gawk: path:line: ` then a
    # note on the input in parentheses or none, then `warning:` or `fatal:` and the message; a
    # finding each (the lint's warnings are what it was run for), named `path:line`; every line
    # gawk printed after its name is one.
    rows = open(capture, errors="replace").read().splitlines()
    for line in rows:
        m = re.match(r"^gawk: (\S+?):(\d+): (?:\([^)]*\) )?(warning|fatal): (.*)$", line)
        if m:
            failures.append((f"{m.group(1)}:{m.group(2)}", m.group(4), m.group(4)))
    if len(failures) != sum(1 for l in rows if l.startswith("gawk: ")):
        sys.exit("gawk: a record not read")
elif kind == "flatc-plain":
    # flatc has no structured output: its own records, `error:` alone over the indented
    # `path:line: col: error: message`; a failure each, named `path:line`, checked against its
    # `error:` headings.
    rows = open(capture, errors="replace").read().splitlines()
    for line in rows:
        m = re.match(r"^\s+(\S+?):(\d+): \d+: error: (.*)$", line)
        if m:
            failures.append((f"{m.group(1)}:{m.group(2)}", m.group(3), m.group(3)))
    if len(failures) != sum(1 for l in rows if l == "error:"):
        sys.exit("flatc: a record not read")
elif kind == "smlnj-plain":
    # SML/NJ has no structured output: its own records, `path:line.col-line.col Error: message`
    # (or `Warning:`), the details indented under it; a finding each, named `path:line`.
    rows = open(capture, errors="replace").read().splitlines()
    for line in rows:
        m = re.match(r"^(\S+?):(\d+)\.\d+(?:-\d+\.\d+)? (?:Error|Warning): (.*)$", line)
        if m:
            failures.append((f"{m.group(1)}:{m.group(2)}", m.group(3), line))
    if not failures:
        sys.exit("sml: no record read")
elif kind == "blint-plain":
    # B::Lint (perl -MO=Lint,all) has no structured output: its own records, `message at PATH
    # line N` (the place last, as perl's warn prints it), all warnings, a finding each; every
    # line but the `PATH syntax OK` closers is one.
    rows = open(capture, errors="replace").read().splitlines()
    for line in rows:
        m = re.match(r"^(.*) at (\S+) line (\d+)\.?$", line)
        if m:
            failures.append((f"{m.group(2)}:{m.group(3)}", m.group(1), line))
    if len(failures) != sum(1 for l in rows if l and not l.endswith(" syntax OK")):
        sys.exit("blint: a record not read")
elif kind == "fasm-plain":
    # fasm has no structured output: `PATH [LINE]:`, the source echoed, `processed: …`, then
    # `error: message.`; one error per failing file, named `path:line`.
    rows = open(capture, errors="replace").read().splitlines()
    for k, line in enumerate(rows):
        m = re.match(r"^(\S+) \[(\d+)\]:$", line)
        if not m:
            continue
        said = next(r for r in rows[k + 1:] if r.startswith("error: "))
        failures.append((f"{m.group(1)}:{m.group(2)}", said[len("error: "):], said[len("error: "):]))
    if len(failures) != sum(1 for l in rows if l.startswith("error: ")):
        sys.exit("fasm: a record not read")
elif kind == "byacc-plain":
    # byacc has no structured output: `byacc: e|w - line N of "PATH", message`, a finding each
    # (a syntax error echoes the source and a caret under it).
    rows = open(capture, errors="replace").read().splitlines()
    for line in rows:
        m = re.match(r'^byacc: [ew] - line (\d+) of "([^"]+)", (.*)$', line)
        if m:
            failures.append((f"{m.group(2)}:{m.group(1)}", m.group(3), line))
    if len(failures) != sum(1 for l in rows if l.startswith("byacc: ")):
        sys.exit("byacc: a record not read")
elif kind == "iasl-plain":
    # iasl's default layout: the source echoed after `PATH   LINE:`, then `Error|Warning|Remark
    # CODE - ^ message` under it; a finding each, named `path:line`, checked against the
    # `N Errors, N Warnings, N Remarks` totals.
    rows = open(capture, errors="replace").read().splitlines()
    for k, line in enumerate(rows[1:], 1):
        m = re.match(r"^(Error|Warning|Remark)\s+\d+ - (.*)$", line)
        p = re.match(r"^(\S+)\s+(\d+):", rows[k - 1])
        if m and p:
            said = max((part.strip() for part in m.group(2).split("^")), key=len)
            failures.append((f"{p.group(1)}:{p.group(2)}", said, said))
    totals = sum(int(a) + int(b) + int(c) for a, b, c in
                 re.findall(r"(\d+) Errors, (\d+) Warnings, (\d+) Remarks", "\n".join(rows)))
    if len(failures) != totals:
        sys.exit(f"iasl: {len(failures)} records, its totals say {totals}")
elif kind == "sassc-plain":
    # sassc (LibSass) has no structured output: `Error: message` or `WARNING: message`, the
    # place in words on the first indented `on line N[:C] of PATH` under it (lines of an
    # `Error:` that wraps, `Use "@extend …"`, may stand between); a finding each.
    rows = open(capture, errors="replace").read().splitlines()
    for k, line in enumerate(rows):
        m = re.match(r"^(Error|WARNING): (.*)$", line)
        if not m:
            continue
        place = next(re.match(r"^\s+on line (\d+)(?::\d+)? of ([^,\s]+)", r)
                     for r in rows[k + 1:k + 5] if re.match(r"^\s+on line ", r))
        failures.append((f"{place.group(2)}:{place.group(1)}", m.group(2), m.group(2)))
elif kind == "xsltproc-plain":
    # xsltproc has no structured output: `compilation error|runtime error: file PATH line N
    # element E` over the message on the next line; a finding each, named `path:line`.
    rows = open(capture, errors="replace").read().splitlines()
    for k, line in enumerate(rows):
        m = re.match(r"^(?:compilation|runtime) error: file (\S+) line (\d+) element \S+$", line)
        if m:
            failures.append((f"{m.group(1)}:{m.group(2)}", rows[k + 1], rows[k + 1]))
    if not failures:
        sys.exit("xsltproc: no record read")
elif kind == "xa-plain":
    # xa (6502 assembler) has no structured output: `PATH:line N: ADDR:message` after the source
    # line echoed; a finding each, named `path:line`, checked against its `Break after N errors`.
    rows = open(capture, errors="replace").read().splitlines()
    for line in rows:
        m = re.match(r"^(\S+):line (\d+): [0-9a-f]+:(.*)$", line)
        if m:
            failures.append((f"{m.group(1)}:{m.group(2)}", m.group(3), line))
    want = sum(int(n) for n in re.findall(r"^Break after (\d+) errors", "\n".join(rows), re.M))
    if len(failures) != want:
        sys.exit(f"xa: {len(failures)} records, its breaks say {want}")
elif kind == "bpmnlint-jsonl":
    # bpmnlint's own reports through its API (diagnostics/ends/bpmnlint/truth.js): each error a
    # failure about an element of a diagram, no line; named by the diagram and the element's id
    # as the table prints them, told apart by the table's row (one element can break two rules).
    rows = open(capture, errors="replace").read().splitlines()
    for line in text.splitlines():
        d = json.loads(line)
        if d["category"] != "error":
            continue
        row = next((r for r in rows if re.match(
            rf"^\s+{re.escape(d['id'])}\s+error\s+{re.escape(d['message'])}\s+{re.escape(d['rule'])}\s*$", r)), None)
        if row is None:
            sys.exit(f"bpmnlint: no row for {d}")
        failures.append((f"{d['file']}: {d['id']}", d["message"], row.strip()))
elif kind == "tmgrammar-xunit":
    # vscode-tmgrammar-test's own --xunit-report, its files wrapped in one <all> element: each
    # <failure> of a test case (a test file's line; one line can fail twice) a failure named by
    # the case, its message from `missing required scopes` on (the text before echoes the source
    # and carets), told apart by its place as the console prints it (`FILE:L:C:C`).
    import xml.etree.ElementTree as ET
    for case in ET.fromstring(text).iter("testcase"):
        name = case.get("name")
        for failure in case.iter("failure"):
            body = failure.text or ""
            at = body.find("missing required scopes")
            message = body[at:].splitlines()[0] if at >= 0 else body.splitlines()[-1]
            place = failure.get("message").removeprefix("Assertion failed at ")
            failures.append((name, message, f"{name.rsplit(':', 1)[0]}:{place}"))
elif kind == "jscs-json":
    # JSCS's --reporter json: every error fails the run; told apart, when two say the same, by
    # the frame's marked line and its marker as the default reporter prints them (records in
    # the same order as the JSON's).
    rows = open(capture, errors="replace").read().splitlines()
    marks = [f"{rows[k - 1]}\n{rows[k]}" for k in range(1, len(rows))
             if re.fullmatch(r"[- ]*\^", rows[k]) and re.match(r"^\s*\d+ \|", rows[k - 1])]
    items = [(path, e) for path, errors in json.loads(text).items() for e in errors]
    if len(marks) != len(items):
        sys.exit(f"jscs: {len(items)} errors, {len(marks)} marked frames")
    for (path, e), mark in zip(items, marks):
        rule, _, message = e["message"].partition(": ")
        failures.append((f"{path}:{e['line']}", message, mark))
elif kind == "gitlint-plain":
    # gitlint has no structured output: its own rows, `Commit <id>:` over `N: CODE message`,
    # each violation a failure named `<id>:N`; their count is checked against its exit status
    # (the number of violations), passed as AUX's second line.
    commit = None
    rows, expected = text.split("\n---exit ")
    for line in rows.splitlines():
        m = re.match(r"^Commit (\w+):$", line)
        if m:
            commit = m.group(1)
            continue
        m = re.match(r"^(\d+): (\w+ .*)$", line)
        if m and commit:
            failures.append((f"{commit}:{m.group(1)}", m.group(2), f"{m.group(1)}: {m.group(2)[:20]}"))
    if len(failures) != int(expected):
        sys.exit(f"gitlint: {len(failures)} rows read, exit status {expected}")
else:
    sys.exit(f"unknown kind {kind}")

shown = re.sub(r"\x1b\[[0-9;]*m|\x1b\]8;;[^\x1b]*\x1b\\", "", open(capture, errors="replace").read())
truth = {"runner": tool, "mode": mode, "project": os.path.basename(os.getcwd()), "color": False,
         "failures": []}
status = 0
starts = [m[:24] for _, m, _ in failures]
for k, (name, message, locator) in enumerate(failures):
    # Two errors whose messages start alike (`mismatched types`), or one whose start is part of
    # another's (`Avoid lambda`, `Avoid lambda using infix`), are told apart by their place.
    alike = any(message[:24] in m for j, (_, m, _) in enumerate(failures) if j != k)
    token = locator if alike else message[:24]
    if token not in shown:
        print(f"token {token!r} of {name} not in {capture}", file=sys.stderr)
        status = 1
    truth["failures"].append({"name": name, "token": token})
json.dump(truth, open(out, "w"), indent=1)
sys.exit(status)
