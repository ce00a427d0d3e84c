//! Structure-aware inputs: logs made of real runner fragments (lines and runs of lines from the
//! captures, CI wrappers, escape sequences, carriage returns), JSON documents grown from the
//! captured reports, hook inputs and Pi events by changing their trees, XML reports changed at
//! the element level, TAP streams and unified diffs from their grammars; and the byte-level
//! mutations the campaign applies on top.

use std::path::Path;
use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value};

/// The real captures, read once: runner logs, report documents, Pi streams, hook inputs.
#[derive(Debug, Default)]
pub struct Captures {
    /// Text logs (runner output, job logs).
    pub logs: Vec<String>,
    /// Their lines.
    pub lines: Vec<String>,
    /// JSON and JSON-lines reports.
    pub json: Vec<String>,
    /// XML reports.
    pub xml: Vec<String>,
    /// Pi's stdout lines.
    pub pi: Vec<String>,
    /// Claude Code hook inputs.
    pub hooks: Vec<String>,
    /// Every object key the JSON captures use, for trees that look like theirs.
    pub keys: Vec<String>,
}

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"))
}

fn read_dir_sorted(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let text = std::fs::read(e.path()).ok()?;
            Some((name, String::from_utf8_lossy(&text).into_owned()))
        })
        .collect();
    files.sort();
    files
}

fn collect_keys(v: &Value, keys: &mut std::collections::BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            for (k, v) in o {
                keys.insert(k.clone());
                collect_keys(v, keys);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| collect_keys(v, keys)),
        _ => {}
    }
}

/// The captures under `tests/fixtures/`.
pub fn captures() -> &'static Captures {
    static CAPTURES: OnceLock<Captures> = OnceLock::new();
    CAPTURES.get_or_init(|| {
        let mut c = Captures::default();
        for dir in ["runners", "runners-heldout", "logs"] {
            for (name, text) in read_dir_sorted(&fixtures().join(dir)) {
                if name.ends_with(".truth.json") {
                    continue;
                }
                if name.ends_with(".json") {
                    c.json.push(text);
                } else if name.ends_with(".xml") {
                    c.xml.push(text);
                } else {
                    c.logs.push(text);
                }
            }
        }
        for (name, text) in read_dir_sorted(&fixtures().join("pi")) {
            if name.ends_with(".jsonl") {
                c.pi.extend(text.lines().map(str::to_owned));
            }
        }
        for (name, text) in read_dir_sorted(&fixtures().join("hooks")) {
            if name.ends_with(".json") {
                c.hooks.push(text);
            } else {
                c.pi.extend(text.lines().map(str::to_owned));
            }
        }
        c.lines = c
            .logs
            .iter()
            .flat_map(|l| l.lines().map(str::to_owned))
            .filter(|l| !l.trim().is_empty())
            .collect();
        let mut keys = std::collections::BTreeSet::new();
        for text in c.json.iter().chain(&c.hooks).chain(&c.pi) {
            if let Ok(v) = serde_json::from_str::<Value>(text) {
                collect_keys(&v, &mut keys);
            }
            for line in text.lines().take(200) {
                if let Ok(v) = serde_json::from_str::<Value>(line) {
                    collect_keys(&v, &mut keys);
                }
            }
        }
        c.keys = keys.into_iter().collect();
        c
    })
}

/// One of `items`, or an empty string when there are none.
fn pick<'a>(u: &mut Unstructured<'_>, items: &'a [String]) -> Result<&'a str> {
    if items.is_empty() {
        return Ok("");
    }
    Ok(items[u.choose_index(items.len())?].as_str())
}

/// Text a person might find anywhere: a real line, a run of a character, escapes, odd bytes.
pub fn odd_text(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.choose_index(9)? {
        0 | 1 => pick(u, &captures().lines)?.to_owned(),
        2 => {
            let c = *u.choose(&['a', ' ', '\t', '=', '-', '✗', '\u{feff}', '\r', '\u{1b}'])?;
            std::iter::repeat_n(c, u.int_in_range(0..=3000)?).collect()
        }
        3 => u.arbitrary::<String>()?,
        4 => (*u.choose(&[
            "\u{1b}[31m",
            "\u{1b}[0m",
            "\u{1b}]8;;http://x\u{7}",
            "\u{1b}_bk;t=1\u{7}",
            "\u{1b}P1$r\u{1b}\\",
            "\u{1b}(B",
            "\u{1b}[1G",
            "\u{1b}[",
            "\u{1b}]",
            "\u{1b}",
        ])?)
        .to_owned(),
        5 => (*u.choose(&[
            "FAIL",
            "not ok 1 - x",
            "--- FAIL: TestX (0.00s)",
            "test x ... FAILED",
            "thread 'x' panicked at src/lib.rs:1:1:",
            "E   assert 1 == 2",
            "● suite › test",
            "  1) test:",
            "[  FAILED  ] A.B",
            "    at Object.<anonymous> (/x.js:1:1)",
            "Traceback (most recent call last):",
            "Error: boom",
            "# Subtest: x",
            "  ---",
            "  ...",
            "Failure/Error: expect(x).to eq(1)",
            "Expected: 1",
            "  Actual: 2",
        ])?)
        .to_owned(),
        6 => {
            let n = u.int_in_range(0..=64)?;
            (0..n).map(|_| char::from(b'0' + (n % 10) as u8)).collect()
        }
        7 => String::new(),
        _ => format!(
            "{}{}",
            pick(u, &captures().lines)?,
            u.arbitrary::<String>()?
        ),
    })
}

/// Prefixes a CI runner's wrapper puts on a line.
fn ci_prefix(u: &mut Unstructured<'_>, line: &str) -> Result<String> {
    Ok(match u.choose_index(9)? {
        0 => format!(
            "2024-05-01T10:00:{:02}.1234567Z {line}",
            u.int_in_range(0..=59)?
        ),
        1 => format!("##[group]{line}"),
        2 => "##[endgroup]".to_owned(),
        3 => format!(
            "section_start:{}:step_{}\r\u{1b}[0K{line}",
            u.int_in_range(0..=2_000_000_000u32)?,
            u.int_in_range(0..=9)?
        ),
        4 => format!(
            "section_end:{}:step_{}\r\u{1b}[0K",
            u.int_in_range(0..=2_000_000_000u32)?,
            u.int_in_range(0..=9)?
        ),
        5 => format!("[Pipeline] {line}"),
        6 => format!("\u{1b}_bk;t={}\u{7}{line}", u.int_in_range(0..=u64::MAX)?),
        7 => format!("2024-05-01T10:00:00.0000000Z ##[error]{line}"),
        _ => format!("[2024-05-01T10:00:00.000Z] {line}"),
    })
}

/// A log made of real runner fragments: lines, runs of consecutive lines from one capture,
/// wrapped as CI runners wrap them, with escapes, carriage returns and odd text between.
pub fn log(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let c = captures();
    let mut out = String::new();
    let wrapped = u.ratio(1, 4)?;
    let pieces = u.int_in_range(0..=40)?;
    for _ in 0..pieces {
        let piece = match u.choose_index(6)? {
            0..=2 if !c.logs.is_empty() => {
                let log = pick(u, &c.logs)?;
                let lines: Vec<&str> = log.lines().collect();
                if lines.is_empty() {
                    String::new()
                } else {
                    let start = u.choose_index(lines.len())?;
                    let len = u.int_in_range(1..=60)?.min(lines.len() - start);
                    lines[start..start + len].join("\n")
                }
            }
            3 => odd_text(u)?,
            4 => pick(u, &c.lines)?.to_owned(),
            _ => tap(u).map(|b| String::from_utf8_lossy(&b).into_owned())?,
        };
        for line in piece.split('\n') {
            let line = if wrapped {
                ci_prefix(u, line)?
            } else {
                line.to_owned()
            };
            out.push_str(&line);
            out.push_str(if u.ratio(1, 20)? { "\r\n" } else { "\n" });
        }
    }
    Ok(out.into_bytes())
}

/// A value for a JSON leaf: numbers at the edges, strings from the captures.
fn leaf(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.choose_index(8)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => serde_json::json!(*u.choose(&[0i64, -1, 1, i64::MAX, i64::MIN, 7, 100_000])?),
        3 => serde_json::json!(*u.choose(&[0.5f64, -1e308, 1e308, 1e-300])?),
        4 => serde_json::json!(u64::MAX),
        5 => Value::String(pick(u, &captures().keys)?.to_owned()),
        _ => Value::String(odd_text(u)?),
    })
}

/// A random tree with keys from the captures, at most `depth` deep.
pub fn tree(u: &mut Unstructured<'_>, depth: usize) -> Result<Value> {
    if depth == 0 || u.ratio(1, 2)? {
        return leaf(u);
    }
    let n = u.int_in_range(0..=4)?;
    if u.arbitrary()? {
        Ok(Value::Array(
            (0..n).map(|_| tree(u, depth - 1)).collect::<Result<_>>()?,
        ))
    } else {
        let mut o = Map::new();
        for _ in 0..n {
            let key = pick(u, &captures().keys)?.to_owned();
            o.insert(key, tree(u, depth - 1)?);
        }
        Ok(Value::Object(o))
    }
}

/// Changes `v` in place, at a node chosen by walking down from the root.
pub fn mutate_tree(u: &mut Unstructured<'_>, v: &mut Value) -> Result<()> {
    let descend = u.ratio(3, 4)?;
    match v {
        Value::Object(o) if descend && !o.is_empty() => {
            let key = o.keys().nth(u.choose_index(o.len())?).cloned();
            if let Some(child) = key.and_then(|k| o.get_mut(&k)) {
                return mutate_tree(u, child);
            }
        }
        Value::Array(a) if descend && !a.is_empty() => {
            let i = u.choose_index(a.len())?;
            return mutate_tree(u, &mut a[i]);
        }
        _ => {}
    }
    match u.choose_index(6)? {
        0 => *v = tree(u, 3)?,
        1 => *v = leaf(u)?,
        2 => match v {
            Value::Object(o) if !o.is_empty() => {
                let key = o.keys().nth(u.choose_index(o.len())?).cloned();
                if let Some(k) = key {
                    o.remove(&k);
                }
            }
            Value::Array(a) if !a.is_empty() => {
                let i = u.choose_index(a.len())?;
                a.remove(i);
            }
            _ => *v = Value::Null,
        },
        3 => match v {
            Value::Object(o) => {
                let key = pick(u, &captures().keys)?.to_owned();
                o.insert(key, tree(u, 2)?);
            }
            Value::Array(a) => {
                let copy = a.first().cloned().unwrap_or(Value::Null);
                let n = u.int_in_range(1..=50)?;
                a.extend(std::iter::repeat_n(copy, n));
            }
            _ => *v = Value::Array(vec![v.clone()]),
        },
        4 => {
            // Deeper: the node wrapped in arrays or objects.
            for _ in 0..u.int_in_range(1..=200)? {
                *v = if u.arbitrary()? {
                    Value::Array(vec![v.take()])
                } else {
                    let mut o = Map::new();
                    o.insert(pick(u, &captures().keys)?.to_owned(), v.take());
                    Value::Object(o)
                };
            }
        }
        _ => {
            if let Value::String(s) = v {
                let n = u.int_in_range(1..=20)?;
                *s = s.repeat(n);
            } else {
                *v = Value::String(odd_text(u)?);
            }
        }
    }
    Ok(())
}

/// `seed` parsed, changed a few times, and written back compact or pretty; text that does not
/// parse is kept as it is.
pub fn json_from(u: &mut Unstructured<'_>, seed: &str) -> Result<Vec<u8>> {
    let Ok(mut v) = serde_json::from_str::<Value>(seed) else {
        return Ok(seed.as_bytes().to_vec());
    };
    for _ in 0..u.int_in_range(0..=6)? {
        mutate_tree(u, &mut v)?;
    }
    let text = if u.arbitrary()? {
        serde_json::to_string_pretty(&v)
    } else {
        serde_json::to_string(&v)
    }
    .unwrap_or_default();
    Ok(text.into_bytes())
}

/// Each line of `lines` parsed and changed as [`json_from`] changes a document; lines that are
/// not JSON kept; lines dropped, repeated and inserted.
pub fn json_lines_from(u: &mut Unstructured<'_>, lines: &[&str]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for line in lines {
        match u.choose_index(10)? {
            0 => continue,
            1 => out.extend_from_slice(odd_text(u)?.as_bytes()),
            2 | 3 => out.extend(json_from(u, line)?.into_iter().filter(|b| *b != b'\n')),
            _ => out.extend_from_slice(line.as_bytes()),
        }
        out.push(b'\n');
    }
    Ok(out)
}

/// A report document: a captured JSON or JSON-lines report or an XML report, changed; or a
/// TAP stream.
pub fn document(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let c = captures();
    match u.choose_index(5)? {
        0 | 1 => {
            let seed = pick(u, &c.json)?;
            if serde_json::from_str::<Value>(seed).is_ok() {
                json_from(u, seed)
            } else {
                let lines: Vec<&str> = seed.lines().collect();
                json_lines_from(u, &lines)
            }
        }
        2 | 3 => {
            let seed = pick(u, &c.xml)?;
            xml_from(u, seed)
        }
        _ => tap(u),
    }
}

/// `seed` cut at each `<`, the elements dropped, repeated, moved, nested and given odd text.
pub fn xml_from(u: &mut Unstructured<'_>, seed: &str) -> Result<Vec<u8>> {
    let parts: Vec<&str> = seed.split_inclusive('>').collect();
    let mut out = String::new();
    for part in &parts {
        match u.choose_index(16)? {
            0 => {}
            1 => {
                out.push_str(part);
                out.push_str(part);
            }
            2 => out.push_str(pick(
                u,
                &parts.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(),
            )?),
            3 => {
                out.push_str(part);
                out.push_str(&xml_escape(&odd_text(u)?));
            }
            4 => {
                out.push_str(&"<testsuite>".repeat(u.int_in_range(1..=300)?));
                out.push_str(part);
            }
            5 => out.push_str(u.choose(&[
                "<![CDATA[",
                "]]>",
                "&amp;",
                "&#x1F600;",
                "&bogus;",
                "<!-- ",
                " -->",
                "<?xml version=\"1.0\"?>",
                "<!DOCTYPE x [<!ENTITY a \"aaaa\">]>",
                "<failure message=\"",
                "</testcase>",
            ])?),
            _ => out.push_str(part),
        }
    }
    Ok(out.into_bytes())
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;")
}

/// A TAP stream from its grammar: versions, plans, points with directives, subtests nested by
/// indentation, YAML and comment diagnostics, bail-outs.
pub fn tap(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let mut out = String::new();
    if u.arbitrary()? {
        out.push_str(u.choose(&["TAP version 13\n", "TAP version 14\n"])?);
    }
    let mut depth = 0usize;
    for n in 1..=u.int_in_range(0..=40)? {
        let indent = "    ".repeat(depth);
        let name = odd_text(u)?.replace('\n', " ");
        let line = match u.choose_index(12)? {
            0 => format!("{indent}ok {n} - {name}"),
            1 | 2 => format!("{indent}not ok {n} - {name}"),
            3 => format!("{indent}not ok {n} - {name} # TODO later"),
            4 => format!("{indent}ok {n} # SKIP {name}"),
            5 => {
                depth += 1;
                format!("{indent}# Subtest: {name}")
            }
            6 => {
                depth = depth.saturating_sub(1);
                format!("{indent}1..{n}")
            }
            7 => format!(
                "{indent}  ---\n{indent}  message: '{name}'\n{indent}  severity: fail\n{indent}  found: 1\n{indent}  wanted: 2\n{indent}  at:\n{indent}    line: 3\n{indent}  ..."
            ),
            8 => format!("{indent}# {name}"),
            9 => format!("{indent}Bail out! {name}"),
            10 => format!("{indent}not ok {}", u.arbitrary::<u64>()?),
            _ => format!("{indent}{name}"),
        };
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out.into_bytes())
}

/// A path as a diff might name it: plain, with spaces, quoted with escapes, odd.
fn diff_path(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.choose_index(6)? {
        0 => "src/lib.rs".to_owned(),
        1 => "dir with space/file name.txt".to_owned(),
        2 => "\"sp\\303\\251cial\\ttab\\\"q.txt\"".to_owned(),
        3 => "a/b b/c".to_owned(),
        4 => odd_text(u)?.replace('\n', ""),
        _ => format!("f{}.py", u.int_in_range(0..=9)?),
    })
}

/// A unified diff from its grammar: `diff --git` headers with quoted and odd paths, status
/// lines, binary notes, hunks whose counts may not match their lines, CRLF and odd content.
pub fn diff(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let mut out = String::new();
    for _ in 0..u.int_in_range(0..=6)? {
        let (a, b) = (diff_path(u)?, diff_path(u)?);
        let quoted = |prefix: &str, p: &str| {
            if let Some(inner) = p.strip_prefix('"') {
                format!("\"{prefix}{inner}")
            } else {
                format!("{prefix}{p}")
            }
        };
        out.push_str(&format!(
            "diff --git {} {}\n",
            quoted("a/", &a),
            quoted("b/", &b)
        ));
        match u.choose_index(8)? {
            0 => out.push_str("new file mode 100644\n"),
            1 => out.push_str("deleted file mode 100644\n"),
            2 => out.push_str(&format!(
                "similarity index 90%\nrename from {a}\nrename to {b}\n"
            )),
            3 => out.push_str(&format!("copy from {a}\ncopy to {b}\n")),
            4 => {
                out.push_str(&format!("Binary files a/{a} and b/{b} differ\n"));
                continue;
            }
            5 => out.push_str("old mode 100644\nnew mode 100755\n"),
            _ => out.push_str("index 0123abc..4567def 100644\n"),
        }
        out.push_str(&format!(
            "--- {}\n+++ {}\n",
            quoted("a/", &a),
            quoted("b/", &b)
        ));
        for _ in 0..u.int_in_range(0..=4)? {
            let num = |u: &mut Unstructured<'_>| -> Result<u64> {
                Ok(*u.choose(&[0u64, 1, 2, 3, 7, 40, 300, 301, 1_000_000, u64::MAX])?)
            };
            let (os, ol, ns, nl) = (num(u)?, num(u)?, num(u)?, num(u)?);
            let header = match u.choose_index(5)? {
                0 => format!("@@ -{os} +{ns} @@"),
                1 => format!("@@ -{os},{ol} +{ns},{nl} @@ fn section()"),
                2 => format!("@@ -{os},{ol} +{ns},{nl}"),
                3 => format!("@@@ -{os},{ol} -{os},{ol} +{ns},{nl} @@@"),
                _ => format!("@@ -{os},{ol} +{ns},{nl} @@"),
            };
            out.push_str(&header);
            out.push('\n');
            for _ in 0..u.int_in_range(0..=40)? {
                let tag = *u.choose(&['+', '-', ' ', '\\', '@', 'd'])?;
                let text = if tag == '\\' {
                    " No newline at end of file".to_owned()
                } else {
                    odd_text(u)?.replace('\n', "")
                };
                out.push(tag);
                out.push_str(&text);
                out.push_str(if u.ratio(1, 10)? { "\r\n" } else { "\n" });
            }
        }
    }
    Ok(out.into_bytes())
}

/// A byte-level mutation of `input`, as a fuzzer's havoc stage makes: bytes flipped,
/// inserted, removed, ranges repeated, a piece of `other` spliced in.
pub fn havoc(u: &mut Unstructured<'_>, input: &[u8], other: &[u8]) -> Result<Vec<u8>> {
    let mut out = input.to_vec();
    for _ in 0..u.int_in_range(1..=8)? {
        let len = out.len();
        match u.choose_index(7)? {
            0 if len > 0 => {
                let i = u.choose_index(len)?;
                out[i] ^= 1 << u.int_in_range(0..=7)?;
            }
            1 => {
                let i = u.int_in_range(0..=len)?;
                out.insert(i, u.arbitrary()?);
            }
            2 if len > 0 => {
                let i = u.choose_index(len)?;
                let n = u.int_in_range(1..=64)?.min(len - i);
                out.drain(i..i + n);
            }
            3 if len > 0 => {
                let i = u.choose_index(len)?;
                let n = u.int_in_range(1..=64)?.min(len - i);
                let piece = out[i..i + n].to_vec();
                let at = u.int_in_range(0..=len)?;
                for _ in 0..u.int_in_range(1..=16)? {
                    out.splice(at..at, piece.iter().copied());
                }
            }
            4 if !other.is_empty() => {
                let i = u.choose_index(other.len())?;
                let n = u.int_in_range(1..=256)?.min(other.len() - i);
                let at = u.int_in_range(0..=len)?;
                out.splice(at..at, other[i..i + n].iter().copied());
            }
            5 => {
                let at = u.int_in_range(0..=len)?;
                let token: &[u8] = u.choose(&[
                    b"\n".as_slice(),
                    b"\r",
                    b"\"",
                    b"{",
                    b"}",
                    b"[",
                    b"]",
                    b"<",
                    b">",
                    b"\x1b[",
                    b"\xff",
                    b"\xc3",
                    b"\0",
                    b"not ok 1",
                    b"FAIL",
                    b"@@ -1 +1 @@",
                    b"diff --git a/x b/x",
                ])?;
                out.splice(at..at, token.iter().copied());
            }
            _ if len > 0 => {
                let i = u.choose_index(len)?;
                out.truncate(i);
            }
            _ => {}
        }
    }
    Ok(out)
}
