//! The report a person reads, one layout for every built-in (D-127): a headline (what was
//! asked, the verdict, the status), the findings most important first with their place and one
//! line of why, the workflow's own lines, one coverage line, what was left out grouped by reason
//! with counts and the first few paths, and what was not checked. Parked items are counted, not
//! listed, and rows per item are left to `--verbose`. Every line fits 100 columns (`text::WIDTH`), or
//! wraps with an indent where one word is longer.

use serde_json::Value;

use super::Packet;
use crate::text::wrap;

/// How many paths a group of left-out items names before "and N more".
const FIRST_PATHS: usize = 3;

/// How many findings (or groups of near-identical ones) the report shows before counting the
/// rest; `--verbose` shows every one.
const FIRST_FINDINGS: usize = 10;

/// Renders `packet` as the report, with every item listed when `verbose`.
pub(super) fn render(packet: &Packet, verbose: bool) -> String {
    let p = &packet.json;
    let mut out: Vec<String> = Vec::new();
    out.extend(wrap(&headline(packet), 2));
    let findings = p["findings"].as_array().map_or(&[][..], Vec::as_slice);
    // The findings, before anything else: they are what the person asked for. Near-identical
    // ones are one entry; the first few are shown, most important first, and the rest counted.
    if !findings.is_empty() {
        out.push(String::new());
        let groups = grouped(findings);
        let shown = if verbose {
            groups.len()
        } else {
            groups.len().min(FIRST_FINDINGS)
        };
        for group in &groups[..shown] {
            out.extend(finding_lines(group, verbose));
        }
        if shown < groups.len() {
            let rest: usize = groups[shown..].iter().map(Vec::len).sum();
            out.push(format!(
                "  and {rest} more {}: rerun with --verbose{}",
                if rest == 1 { "finding" } else { "findings" },
                runs_hint(p)
            ));
        }
    }
    for section in &packet.sections {
        if section.verbose_only && !verbose {
            continue;
        }
        let lines = match (&section.full, verbose) {
            (Some(full), true) => full,
            _ => &section.lines,
        };
        if lines.is_empty() {
            continue;
        }
        out.push(String::new());
        out.push(format!("{}:", section.title));
        for line in lines {
            out.extend(wrap(&format!("  {line}"), 6));
        }
    }
    out.push(String::new());
    out.extend(wrap(&coverage_line(p), 2));
    let left = left_out(p, verbose);
    if !left.lines.is_empty() {
        out.push(String::new());
        out.push("left out:".into());
        for line in &left.lines {
            out.extend(wrap(&format!("  {line}"), 6));
        }
        if left.elided && !verbose {
            out.push(format!(
                "  every item: rerun with --verbose{}",
                runs_hint(p)
            ));
        }
    }
    let not_checked: Vec<&str> = strings(&p["notChecked"]);
    if !not_checked.is_empty() {
        out.push(String::new());
        out.extend(wrap(&format!("not checked: {}", not_checked.join("; ")), 2));
    }
    out.join("\n")
}

/// The built-in a packet comes from: a diff analysis names its mode, a triage its kind.
fn builtin(p: &Value) -> &str {
    let summary = &p["summary"];
    if let Some(mode) = summary["analysis"].as_str() {
        return mode;
    }
    match summary["kind"].as_str() {
        Some("failures") => "triage_failures",
        Some("comments") => "triage_comments",
        _ => {
            let workflow = p["workflow"].as_str().unwrap_or("");
            workflow.split('@').next().unwrap_or(workflow)
        }
    }
}

/// What a built-in is called in a headline.
fn title(workflow: &str) -> &str {
    match workflow {
        "review" => "correctness review",
        "test_gaps" => "test-gap review",
        "security_review" => "security review",
        "performance_review" => "performance review",
        "compatibility_review" => "compatibility review",
        "summarize" => "change summary",
        "check" => "check",
        "find" => "code search",
        "triage_failures" => "failure triage",
        "triage_comments" => "review-comment triage",
        other => other,
    }
}

/// What was looked at: the diff's scope, or where a triage's input came from.
fn subject(p: &Value) -> String {
    let summary = &p["summary"];
    let diff = if summary["diff"].is_object() {
        &summary["diff"]
    } else {
        &summary["task"]["diff"]
    };
    let scope = match diff["scope"].as_str() {
        Some("staged") => Some("the staged changes".to_owned()),
        Some("branch") => Some(match diff["baseRef"].as_str().filter(|b| !b.is_empty()) {
            Some(base) => format!("the branch against {base}"),
            None => "the branch".to_owned(),
        }),
        Some(_) => Some("the worktree changes".to_owned()),
        None => None,
    };
    let source = summary["source"].as_str().map(|s| format!("from {s}"));
    match (source, scope) {
        (Some(source), Some(scope)) => format!(" {source}, with {scope}"),
        (Some(source), None) => format!(" {source}"),
        (None, Some(scope)) => format!(" of {scope}"),
        (None, None) => String::new(),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The findings as a count, with how many are warnings.
fn findings_count(findings: &[Value]) -> String {
    let warn = findings.iter().filter(|f| f["severity"] == "warn").count();
    let count = plural(findings.len(), "finding", "findings");
    if warn > 0 && warn < findings.len() {
        format!("{count} ({warn} warn)")
    } else {
        count
    }
}

/// The verdict in a few words: what a workflow found, or that nothing was flagged.
fn verdict(p: &Value) -> String {
    let findings = p["findings"].as_array().map_or(&[][..], Vec::as_slice);
    let rows = p["results"].as_array().map_or(&[][..], Vec::as_slice);
    let with_findings = |what: String| {
        if findings.is_empty() {
            what
        } else {
            format!("{what}, {}", findings_count(findings))
        }
    };
    match builtin(p) {
        "triage_failures" => {
            let failures = rows
                .iter()
                .filter(|r| r["duplicateOf"].is_null() && !r["id"].is_null())
                .count();
            with_findings(plural(failures, "failure", "failures"))
        }
        "triage_comments" => {
            let mut counts: Vec<(String, usize)> = Vec::new();
            for r in rows {
                let class = r["classification"].as_str().unwrap_or("unjudged");
                let class = class.replace('_', " ");
                match counts.iter_mut().find(|(c, _)| *c == class) {
                    Some(entry) => entry.1 += 1,
                    None => counts.push((class, 1)),
                }
            }
            let parts: Vec<String> = counts.iter().map(|(c, n)| format!("{n} {c}")).collect();
            let what = plural(rows.len(), "comment", "comments");
            if parts.is_empty() {
                what
            } else {
                format!("{what} ({})", parts.join(", "))
            }
        }
        "find" => {
            let ranked = rows.iter().filter(|r| !r["rank"].is_null()).count();
            with_findings(format!(
                "{} ranked",
                plural(ranked, "candidate", "candidates")
            ))
        }
        "summarize" => {
            let hunks = p["summary"]["eligibleHunks"].as_u64().unwrap_or(0) as usize;
            let categories = p["summary"]["classifications"]
                .as_object()
                .map_or(0, |c| c.keys().filter(|k| !is_unsaid(k)).count());
            with_findings(if categories == 0 {
                format!(
                    "{}, none clearly in a category",
                    plural(hunks, "hunk", "hunks")
                )
            } else {
                format!(
                    "{} in {}",
                    plural(hunks, "hunk", "hunks"),
                    plural(categories, "category", "categories")
                )
            })
        }
        _ if findings.is_empty() => "nothing flagged (not an approval)".to_owned(),
        _ => findings_count(findings),
    }
}

/// A label that says nothing about the change (no answer, or not sure).
pub(crate) fn is_unsaid(label: &str) -> bool {
    matches!(
        label,
        "cannot_tell" | "unjudged" | "failed" | "excluded" | ""
    )
}

fn headline(packet: &Packet) -> String {
    let p = &packet.json;
    let mut status = packet.status.as_str().replace('_', " ");
    if let Some(reason) = p["statusReason"].as_str() {
        status.push_str(&format!(" ({reason})"));
    }
    format!(
        "{}{}: {} · {status} · advisory",
        title(builtin(p)),
        subject(p),
        verdict(p)
    )
}

/// The first line of a `lines` value (`12-14` or `181-340,1-160` is `12`, `181`).
fn first_line(lines: &str) -> Option<&str> {
    let first = lines.split([',', '-']).next()?.trim();
    (!first.is_empty() && first.bytes().all(|b| b.is_ascii_digit())).then_some(first)
}

/// Where an item sits as terminals and editors open it: `path:line`, or the path alone.
fn place(item: &Value) -> Option<String> {
    let path = item["path"].as_str()?;
    Some(match item["lines"].as_str().and_then(first_line) {
        Some(line) => format!("{path}:{line}"),
        None => path.to_owned(),
    })
}

/// `, or `stanleyctl runs show latest`` when the run was recorded.
fn runs_hint(p: &Value) -> &'static str {
    if p["artifact"].is_null() {
        ""
    } else {
        ", or `stanleyctl runs show latest`"
    }
}

/// The findings in their order, near-identical ones together: the same flag about the same
/// changed text (one edit made in several files) is one group, in the place of its first.
fn grouped(findings: &[Value]) -> Vec<Vec<&Value>> {
    let mut groups: Vec<Vec<&Value>> = Vec::new();
    let mut by_key: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for f in findings {
        let Some(key) = same_finding_key(f) else {
            groups.push(vec![f]);
            continue;
        };
        match by_key.get(&key) {
            Some(&i) => groups[i].push(f),
            None => {
                by_key.insert(key, groups.len());
                groups.push(vec![f]);
            }
        }
    }
    groups
}

/// What makes two findings near-identical: the flag and the quoted text, whitespace aside;
/// None for a finding that quotes nothing (it is its own group).
fn same_finding_key(f: &Value) -> Option<String> {
    let quote = f["quote"].as_array().filter(|q| !q.is_empty())?;
    let mut key = f["flag"].as_str().unwrap_or("").to_owned();
    for q in quote {
        key.push('\u{1e}');
        key.push_str(q["change"].as_str().unwrap_or(""));
        key.push('\u{1f}');
        key.extend(
            q["text"]
                .as_str()
                .unwrap_or("")
                .split_whitespace()
                .flat_map(|w| [w, " "]),
        );
    }
    Some(key)
}

/// One finding (or a group of near-identical ones): its severity, its place and what it says,
/// then the changed lines it quotes, then where the others of its group are.
fn finding_lines(group: &[&Value], verbose: bool) -> Vec<String> {
    let f = group[0];
    let severity = if f["severity"] == "warn" {
        "warn"
    } else {
        "info"
    };
    let why = crate::result::finding_message(f);
    let head = match place(f) {
        Some(at) => format!("  {severity}  {at}  {why}"),
        None => format!("  {severity}  {why}"),
    };
    let mut out = wrap(&head, 8);
    for line in crate::result::quoted_lines(f) {
        out.push(crate::text::truncate_chars(
            &format!("        {line}"),
            crate::text::WIDTH - 1,
        ));
    }
    if group.len() > 1 {
        let places: Vec<String> = group[1..].iter().filter_map(|g| place(g)).collect();
        let (named, _) = names(&places, verbose);
        out.extend(wrap(
            &format!(
                "        the same in {}: {named}",
                plural(group.len() - 1, "other place", "other places")
            ),
            10,
        ));
    }
    out
}

fn count(c: &Value, key: &str) -> u64 {
    c[key].as_u64().unwrap_or(0)
}

/// The coverage in one line: how many candidates, how many judged, then what was decided
/// without Jev, excluded by rule (with each rule's count), parked, failed and not judged, each
/// when there were any, and whether that is complete.
fn coverage_line(p: &Value) -> String {
    let c = &p["coverage"];
    let mut parts = vec![
        format!("{} candidates", count(c, "candidates")),
        format!("{} judged", count(c, "judged")),
    ];
    if count(c, "deterministic") > 0 {
        parts.push(format!("{} deterministic", count(c, "deterministic")));
    }
    let by_rule: Vec<String> = excluded_by_rule(p)
        .iter()
        .map(|(rule, items)| format!("{rule} {}", items.len()))
        .collect();
    let excluded = count(c, "excluded");
    if excluded > 0 || !by_rule.is_empty() {
        parts.push(if by_rule.is_empty() {
            format!("{excluded} excluded by rule")
        } else {
            format!("{excluded} excluded by rule ({})", by_rule.join(", "))
        });
    }
    for key in ["parked", "failed", "unjudged"] {
        if count(c, key) > 0 {
            parts.push(format!("{} {key}", count(c, key)));
        }
    }
    parts.push(if c["complete"] == true {
        "complete".to_owned()
    } else {
        "INCOMPLETE".to_owned()
    });
    format!("coverage: {}", parts.join(" · "))
}

/// Exclusions grouped by the rule that decided them, in the order rules first appear.
fn excluded_by_rule(p: &Value) -> Vec<(String, Vec<&Value>)> {
    let mut groups: Vec<(String, Vec<&Value>)> = Vec::new();
    for item in p["excluded"].as_array().into_iter().flatten() {
        let rule = item["rule"].as_str().unwrap_or("other").to_owned();
        match groups.iter_mut().find(|(r, _)| *r == rule) {
            Some((_, items)) => items.push(item),
            None => groups.push((rule, vec![item])),
        }
    }
    groups
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The first few names and how many more, or every name when `verbose`.
fn names(names: &[String], verbose: bool) -> (String, bool) {
    if verbose || names.len() <= FIRST_PATHS {
        return (names.join(", "), false);
    }
    (
        format!(
            "{} and {} more",
            names[..FIRST_PATHS].join(", "),
            names.len() - FIRST_PATHS
        ),
        true,
    )
}

/// `` `linguist-generated` in .gitattributes:5 ``: an exclusion's declaration, if it has one.
fn declaration(item: &Value) -> Option<String> {
    let d = &item["declaredBy"];
    let attribute = d["attribute"].as_str()?;
    Some(match (d["file"].as_str(), d["line"].as_u64()) {
        (Some(file), Some(line)) => format!("`{attribute}` in {file}:{line}"),
        _ => format!("`{attribute}` in the attributes"),
    })
}

struct LeftOut {
    lines: Vec<String>,
    /// Something was counted but not named.
    elided: bool,
}

/// The distinct names of items, in order: their path, else their test, else their id.
fn distinct(items: &[&Value]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let name = item["path"]
            .as_str()
            .or_else(|| item["testName"].as_str())
            .or_else(|| item["id"].as_str())
            .unwrap_or("")
            .to_owned();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// What was left out, by reason: parked (counted by reason; listed with `verbose`), excluded
/// by each rule, failed and unjudged (with their files), and the run's limits.
fn left_out(p: &Value, verbose: bool) -> LeftOut {
    let mut lines = Vec::new();
    let mut elided = false;
    let parked = p["parked"].as_array().map_or(&[][..], Vec::as_slice);
    if !parked.is_empty() {
        let mut reasons: Vec<(&str, usize)> = Vec::new();
        for item in parked {
            let reason = item["reason"].as_str().unwrap_or("");
            match reasons.iter_mut().find(|(r, _)| *r == reason) {
                Some(entry) => entry.1 += 1,
                None => reasons.push((reason, 1)),
            }
        }
        reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
        // A diff analysis starts each reason with its own id, which the headline says.
        let own = format!("{}: ", builtin(p));
        let why: Vec<String> = reasons
            .iter()
            .take(FIRST_PATHS)
            .map(|(r, n)| format!("{} ({n})", r.strip_prefix(&own).unwrap_or(r)))
            .collect();
        let more = reasons.len().saturating_sub(FIRST_PATHS);
        let more = if more > 0 {
            format!("; {more} other reasons")
        } else {
            String::new()
        };
        let counted = if verbose {
            ""
        } else {
            " (counted, not listed)"
        };
        lines.push(format!(
            "parked {}{counted}: {}{more}",
            parked.len(),
            why.join("; ")
        ));
        if verbose {
            for item in parked {
                let reason = item["reason"].as_str().unwrap_or("");
                lines.push(format!(
                    "  ? {}: {}",
                    place(item).unwrap_or_else(|| item["id"].as_str().unwrap_or("").to_owned()),
                    reason.strip_prefix(&own).unwrap_or(reason)
                ));
            }
        } else {
            elided = true;
        }
    }
    for (rule, items) in excluded_by_rule(p) {
        let declared: Vec<(&str, String)> = items
            .iter()
            .filter_map(|x| declaration(x).map(|d| (x["path"].as_str().unwrap_or(""), d)))
            .collect();
        if declared.is_empty() {
            let (listed, cut) = names(&distinct(&items), verbose);
            elided |= cut;
            lines.push(format!("excluded by rule {rule} {}: {listed}", items.len()));
            continue;
        }
        // What the repository declared: the files that declared it, and with `verbose` each
        // path with its attribute and line (D-163).
        let mut files: Vec<&str> = Vec::new();
        for x in &items {
            if let Some(f) = x["declaredBy"]["file"].as_str()
                && !files.contains(&f)
            {
                files.push(f);
            }
        }
        let (listed_files, _) = names(
            &files.iter().map(|f| (*f).to_owned()).collect::<Vec<_>>(),
            verbose,
        );
        if verbose {
            lines.push(format!(
                "excluded by rule {rule} {} (declared in {listed_files}):",
                items.len()
            ));
            for (path, d) in &declared {
                lines.push(format!("  {path}: {d}"));
            }
        } else {
            let (listed, cut) = names(&distinct(&items), verbose);
            elided |= cut;
            lines.push(format!(
                "excluded by rule {rule} {} (declared in {listed_files}): {listed}",
                items.len()
            ));
        }
    }
    let rows = p["results"].as_array().map_or(&[][..], Vec::as_slice);
    for disposition in ["failed", "unjudged"] {
        let items: Vec<&Value> = rows
            .iter()
            .filter(|r| r["disposition"] == disposition)
            .collect();
        let expected = count(&p["coverage"], disposition) as usize;
        let n = items.len().max(expected);
        if n == 0 {
            continue;
        }
        let files = distinct(&items);
        if files.is_empty() {
            lines.push(format!("{disposition} {n}"));
            continue;
        }
        let (listed, cut) = names(&files, verbose);
        elided |= cut;
        lines.push(format!(
            "{disposition} {n}, in {}: {listed}",
            plural(files.len(), "place", "places")
        ));
    }
    for limit in strings(&p["limits"]) {
        lines.push(format!("- {limit}"));
    }
    LeftOut { lines, elided }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::WIDTH;

    #[test]
    fn wraps_at_spaces_within_the_width() {
        let text = format!("not checked: {}", "word ".repeat(40).trim_end());
        let lines = wrap(&text, 2);
        assert!(lines.len() > 1);
        assert!(
            lines.iter().all(|l| l.chars().count() <= WIDTH),
            "{lines:?}"
        );
        assert!(lines[1..].iter().all(|l| l.starts_with("  w")));
        assert_eq!(lines.join(" ").split_whitespace().count(), 42);
        assert_eq!(wrap("short", 4), vec!["short".to_owned()]);
    }

    #[test]
    fn places_open_at_the_first_line() {
        assert_eq!(first_line("12-14"), Some("12"));
        assert_eq!(first_line("181-340,1-160"), Some("181"));
        assert_eq!(first_line("-"), None);
        let item = serde_json::json!({"path": "src/a.rs", "lines": "3-9"});
        assert_eq!(place(&item).as_deref(), Some("src/a.rs:3"));
    }
}
