#!/usr/bin/env python3
"""Score `stanley-logread` against ground truth kept outside this repository (issue 46).

A blind set is a folder of logs, each `NAME.log` beside `NAME.truth.json`, captured by a helper
session from real runs and never shown to the person tuning the reader. Truth is written from the
tool's own structured output (JUnit XML, JSON reporters, SARIF, a summary), not from the text log:

    {"category": "tests" | "lint" | "wrapped" | "job",
     "failures": [{"name": "...", "message": "...", "path": "a/b.py", "line": 12,
                   "severity": "error" | "warning"}],
     "reasons": ["a line of the log that says why the job failed", ...]}

`name` is a test's name as the tool reports it (for a diagnostic, may be empty); `message` is the
failure's own message (its first line is what is matched); `path`/`line` place a diagnostic (a finding about a whole file has no line: a block named by
the file's base name that carries its message places it; one with neither a name nor a path is
found by a block that carries its message);
`reasons` (jobs only) are the log lines that say why the job failed.

Per failure: **found** when a block of its own names it (of several, one that carries its
message first) (its `testName` holds the name, or for a
placed failure its name or first line holds the file's base name and the line number); **merged**
when the only block that names it already names another failure; **attributed** when found and the
block's `message` holds the start of the truth message (first 40 characters, compared lower-case
with whitespace collapsed and quotes dropped). Per log: **extra** blocks named for no failure,
**false dups** (two blocks of different failures sharing a fingerprint), **empty** (failures but no
block). A job is **shown first** when its first block's lines hold a reason (a time stamp before a reason's
line is not compared, since the reader shows lines without the wrapper's stamps).

    scripts/eval/score.py BINARY SET_DIR [--generic] [--json OUT]

Prints totals by category and a per-log table (log ids only, so the figures can be shared
without the material).
"""

import json
import re
import subprocess
import sys
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def norm(text):
    text = ANSI.sub("", text or "")
    text = re.sub(r"[\"'`‘’“”]", "", text)
    return re.sub(r"\s+", " ", text).strip().lower()


STAMP = re.compile(
    r"^\[?(\d{4}-\d\d-\d\d[t ])?\d\d:\d\d:\d\d([.,]\d+)?(z|[+-]\d\d:?\d\d)?\]?\s*"
)


def reason(text):
    """A job's reason as compared: a time stamp the wrapper put before the line is not part of
    it (the reader shows the line unwrapped, the truth may keep the stamp; a stream's label
    likewise, see `holds`)."""
    return STAMP.sub("", norm(text))[:40]


def segments(name):
    return [s for s in re.split(r"::|›|>|/|\.|#| - |\s+", norm(name)) if s]


def names(block, failure):
    """Whether a block's name names a test failure."""
    want, got = norm(failure.get("name")), norm(block.get("testName"))
    if not want or not got:
        return False
    if want in got or (got in want and len(got) >= 0.6 * len(want)):
        return True
    w, g = segments(want), segments(got)
    return bool(w and g and w[-1] == g[-1] and len(w[-1]) >= 4)


def places(block, failure):
    """Whether a block names a diagnostic's place: base name and line number."""
    path, line = failure.get("path"), failure.get("line")
    if not path:
        return False
    if line is None:
        # A finding about a whole file (no line): a block named by the file that says it.
        named = norm(block.get("testName") or "")
        return named.rsplit("/", 1)[-1] == Path(path).name.lower() and attributed(block, failure)
    base = re.escape(Path(path).name.lower())
    pattern = re.compile(base + r".{0,40}?(?<!\d)" + str(line) + r"(?!\d)")
    first = (block.get("lines") or [""])[0] if block.get("lines") else ""
    for text in [block.get("testName") or "", *(block.get("anchors") or []), first]:
        if pattern.search(norm(str(text))):
            return True
    return False


def matches(block, failure):
    # A finding the tool gives neither a name nor a place (`W: pkg: tag`, `prog: WARNING:
    # message`) is found by a block that carries its message.
    if not norm(failure.get("name")) and not failure.get("path"):
        return attributed(block, failure)
    return names(block, failure) or places(block, failure)


def attributed(block, failure):
    want = norm((failure.get("message") or "").splitlines()[0] if failure.get("message") else "")
    got = norm(block.get("message"))
    if not want:
        return False
    key = want[:40]
    return key in got or (len(got) >= 20 and got in want)


def read(binary, log, generic):
    args = [binary] + (["--generic"] if generic else []) + [str(log)]
    out = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1:] or ["exit %d" % out.returncode]
    return json.loads(out.stdout), None


def score_log(parsed, truth):
    blocks = parsed["blocks"]
    failures = truth.get("failures", [])
    owner = {}  # block index -> failure index
    row = {"failures": len(failures), "found": 0, "attributed": 0, "merged": 0,
           "errors": 0, "errors_found": 0, "errors_attributed": 0}
    taken_by = [None] * len(failures)
    for fi, failure in enumerate(failures):
        hits = [bi for bi, b in enumerate(blocks) if matches(b, failure)]
        free = [bi for bi in hits if bi not in owner]
        is_error = failure.get("severity", "error") == "error"
        row["errors"] += is_error
        if free:
            # (Of several blocks that name it, one that carries its message: findings at one
            # place are paired by what they say, not by order.)
            bi = next((b for b in free if attributed(blocks[b], failure)), free[0])
            owner[bi] = fi
            taken_by[fi] = bi
            row["found"] += 1
            row["errors_found"] += is_error
            if attributed(blocks[bi], failure):
                row["attributed"] += 1
                row["errors_attributed"] += is_error
        elif hits:
            row["merged"] += 1
    row["extra"] = sum(1 for bi in range(len(blocks)) if bi not in owner) if failures else 0
    prints = {}
    dups = 0
    for bi, fi in owner.items():
        fp = blocks[bi].get("fingerprint")
        if fp and fp in prints and norm(failures[prints[fp]].get("message")) != norm(failures[fi].get("message")):
            dups += 1
        prints.setdefault(fp, fi)
    row["false_dups"] = dups
    row["empty"] = int(bool(failures) and not blocks)
    if truth.get("category") == "job":
        full = [STAMP.sub("", norm(r)) for r in truth.get("reasons", [])]
        reasons = [r[:40] for r in full if r]

        def holds(b):
            # The line itself, or the line without the label of its stream (`148e2d7c ams
            # [info]`, `web_1 | `), which the reader shows unwrapped and as the block's step.
            lines = [norm(l) for l in b.get("lines") or []]
            text = "\n".join(lines)
            return any(r in text for r in reasons) or any(
                len(l) >= 20 and f.endswith(l) for l in lines for f in full)

        row["job_first"] = int(bool(blocks) and holds(blocks[0]))
        row["job_shown"] = int(any(holds(b) for b in blocks))
    return row


def pct(a, b):
    return "%.1f" % (100.0 * a / b) if b else "-"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    generic = "--generic" in sys.argv
    out_json = None
    if "--json" in sys.argv:
        out_json = sys.argv[sys.argv.index("--json") + 1]
        args = [a for a in args if a != out_json]
    if len(args) != 2:
        sys.exit(__doc__)
    binary, folder = args
    rows, totals = [], {}
    for k, truth_path in enumerate(sorted(Path(folder).glob("*.truth.json")), 1):
        truth = json.loads(truth_path.read_text())
        log = truth_path.with_name(truth_path.name.replace(".truth.json", ".log"))
        parsed, err = read(binary, log, generic)
        cat = truth.get("category", "tests")
        if parsed is None:
            row = {"failures": len(truth.get("failures", [])), "crash": err}
        else:
            row = score_log(parsed, truth)
        row["id"], row["category"] = "L%02d" % k, cat
        rows.append(row)
        t = totals.setdefault(cat, {})
        for key, value in row.items():
            if isinstance(value, int):
                t[key] = t.get(key, 0) + value
        t["logs"] = t.get("logs", 0) + 1
        t["crashes"] = t.get("crashes", 0) + ("crash" in row)
    every = {}
    for cat, t in totals.items():
        if cat == "job":
            continue
        for key, value in t.items():
            every[key] = every.get(key, 0) + value
    print("reader %s%s" % (binary, " --generic" if generic else ""))
    print("category  logs failures found%  attr%  merged extra dups empty crashes")
    for cat, t in sorted(totals.items()) + [("ALL(non-job)", every)]:
        print("%-12s %3d %6d %6s %6s %5d %5d %4d %4d %4d" % (
            cat, t.get("logs", 0), t.get("failures", 0), pct(t.get("found", 0), t.get("failures", 0)),
            pct(t.get("attributed", 0), t.get("failures", 0)), t.get("merged", 0), t.get("extra", 0),
            t.get("false_dups", 0), t.get("empty", 0), t.get("crashes", 0)))
    if "lint" in totals:
        t = totals["lint"]
        print("lint errors only: %s found / %s attributed of %d" % (
            pct(t.get("errors_found", 0), t.get("errors", 0)),
            pct(t.get("errors_attributed", 0), t.get("errors", 0)), t.get("errors", 0)))
    if "job" in totals:
        t = totals["job"]
        print("jobs: reason shown first %d/%d, shown anywhere %d/%d" % (
            t.get("job_first", 0), t["logs"], t.get("job_shown", 0), t["logs"]))
    print("\nper log:")
    for row in rows:
        print(json.dumps(row, sort_keys=True))
    if out_json:
        Path(out_json).write_text(json.dumps({"totals": totals, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
