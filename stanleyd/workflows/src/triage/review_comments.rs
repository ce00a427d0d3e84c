//! Review-comment parsing: a JSON array (or `{comments: [...]}`) in the GitHub API shape or a
//! plain `{body, path, line}` shape, normalized to one comment type.

use serde_json::Value;
use stanley_core::stable_id;

/// Most comments accepted.
pub const MAX_COMMENTS: usize = 1000;
/// Longest body kept; longer bodies are truncated and flagged.
pub const MAX_BODY_CHARS: usize = 4000;

/// Who wrote a comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthorKind {
    Bot,
    Human,
    Unknown,
}

impl AuthorKind {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthorKind::Bot => "bot",
            AuthorKind::Human => "human",
            AuthorKind::Unknown => "unknown",
        }
    }
}

/// One review comment.
#[derive(Clone, Debug, PartialEq)]
pub struct Comment {
    pub id: String,
    pub source_id: Option<String>,
    pub body: String,
    pub body_truncated: bool,
    pub author: Option<String>,
    pub author_kind: AuthorKind,
    pub path: Option<String>,
    pub line: Option<u64>,
    pub start_line: Option<u64>,
    pub in_reply_to: Option<String>,
    pub outdated: Option<bool>,
    /// The line in the commit the comment was made on (`original_line`).
    pub original_line: Option<u64>,
    /// The commit the comment was made on (`original_commit_id`).
    pub original_commit: Option<String>,
    /// The diff hunk the comment was made on (`diff_hunk`), ending at the commented line.
    pub diff_hunk: Option<String>,
}

fn id_string(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.chars().take(100).collect()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn positive(v: Option<&Value>) -> Option<u64> {
    v.and_then(Value::as_u64).filter(|n| *n > 0)
}

/// What a comment's id hashes: its source id, body, path, line and place in the input.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CommentKey<'a> {
    source_id: &'a Option<String>,
    body: &'a str,
    path: &'a Option<String>,
    line: Option<u64>,
    index: usize,
}

/// Whether the text looks like JSON but is not valid JSON (routed to comment triage so the
/// parse error is reported with its position).
pub fn looks_like_broken_json(text: &str) -> bool {
    let t = text.trim_start();
    (t.starts_with('[') || t.starts_with('{')) && serde_json::from_str::<Value>(text).is_err()
}

/// Why review comments cannot be read; every one is an input error.
#[derive(Debug, thiserror::Error)]
pub enum CommentsError {
    #[error("comments must be JSON (line {line}, column {column}: {source})", line = .0.line(), column = .0.column(), source = .0)]
    NotJson(#[source] serde_json::Error),
    #[error("comments JSON must be an array or {{ comments: [...] }}")]
    NotAList,
    #[error("comments JSON has {0} comments; the limit is {MAX_COMMENTS}")]
    TooMany(usize),
    #[error("comments[{0}].body must be a non-empty string")]
    NoBody(usize),
}

/// Parses review comments; every problem is an input error.
pub fn parse_comments(text: &str) -> Result<Vec<Comment>, CommentsError> {
    let doc: Value = serde_json::from_str(text).map_err(CommentsError::NotJson)?;
    let items = match &doc {
        Value::Array(a) => a,
        Value::Object(o) => match o.get("comments") {
            Some(Value::Array(a)) => a,
            _ => return Err(CommentsError::NotAList),
        },
        _ => return Err(CommentsError::NotAList),
    };
    if items.len() > MAX_COMMENTS {
        return Err(CommentsError::TooMany(items.len()));
    }
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let body = item
            .get("body")
            .and_then(Value::as_str)
            .filter(|b| !b.trim().is_empty())
            .ok_or(CommentsError::NoBody(index))?;
        let author = item
            .get("author")
            .and_then(Value::as_str)
            .or_else(|| item.pointer("/user/login").and_then(Value::as_str))
            .map(str::to_owned);
        let kind_field = item
            .get("author_type")
            .or_else(|| item.get("authorType"))
            .or_else(|| item.pointer("/user/type"))
            .and_then(Value::as_str);
        let author_kind = if kind_field == Some("Bot")
            || author.as_deref().is_some_and(|a| {
                a.to_lowercase().ends_with("[bot]") || a.to_lowercase().ends_with("bot")
            }) {
            AuthorKind::Bot
        } else if author.is_some() || kind_field.is_some() {
            AuthorKind::Human
        } else {
            AuthorKind::Unknown
        };
        let path = item
            .get("path")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
            .map(|p| {
                p.trim_start_matches("./")
                    .chars()
                    .take(500)
                    .collect::<String>()
            });
        // `line` is where the comment is now; an outdated comment has none, only the line in
        // the commit it was made on.
        let original_line =
            positive(item.get("original_line")).or_else(|| positive(item.get("originalLine")));
        let diff_hunk = item
            .get("diff_hunk")
            .or_else(|| item.get("diffHunk"))
            .and_then(Value::as_str)
            .filter(|h| !h.trim().is_empty())
            .map(|h| h.chars().take(MAX_BODY_CHARS).collect::<String>());
        let current = positive(item.get("line"));
        // Without a hunk to place it by, the original line is the best guess there is.
        let line = current.or(original_line.filter(|_| diff_hunk.is_none()));
        let start_line =
            positive(item.get("start_line")).or_else(|| positive(item.get("startLine")));
        let outdated = match item.get("outdated") {
            Some(Value::Bool(b)) => Some(*b),
            _ => item
                .get("position")
                .filter(|p| p.is_null())
                .map(|_| true)
                .or_else(|| (current.is_none() && original_line.is_some()).then_some(true)),
        };
        let truncated = body.chars().count() > MAX_BODY_CHARS;
        let body: String = body.chars().take(MAX_BODY_CHARS).collect();
        let source_id = id_string(item.get("id"));
        let id = stable_id(
            "cm",
            &crate::run::to_value(&CommentKey {
                source_id: &source_id,
                body: &body,
                path: &path,
                line,
                index,
            }),
            10,
        );
        out.push(Comment {
            id,
            source_id,
            body,
            body_truncated: truncated,
            author,
            author_kind,
            path,
            line,
            start_line,
            in_reply_to: id_string(item.get("in_reply_to_id"))
                .or_else(|| id_string(item.get("inReplyTo"))),
            outdated,
            original_line,
            original_commit: id_string(item.get("original_commit_id"))
                .or_else(|| id_string(item.get("originalCommitId"))),
            diff_hunk,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_github_and_plain_shapes() {
        let github = r#"[{"id": 101, "body": "Null check?", "path": "./src/a.ts", "line": 3, "user": {"login": "dev", "type": "User"}, "position": null},
                        {"id": 102, "body": "Agreed", "in_reply_to_id": 101, "user": {"login": "ci[bot]", "type": "Bot"}}]"#;
        let c = parse_comments(github).unwrap();
        assert_eq!(
            (
                c[0].path.as_deref(),
                c[0].line,
                c[0].author_kind,
                c[0].outdated
            ),
            (Some("src/a.ts"), Some(3), AuthorKind::Human, Some(true))
        );
        assert_eq!(
            (c[1].in_reply_to.as_deref(), c[1].author_kind),
            (Some("101"), AuthorKind::Bot)
        );
        let plain = parse_comments(r#"{"comments": [{"body": "x", "original_line": 7}]}"#).unwrap();
        assert_eq!(
            (plain[0].line, plain[0].author_kind),
            (Some(7), AuthorKind::Unknown)
        );
        assert!(parse_comments("[]").unwrap().is_empty());
    }

    #[test]
    fn an_outdated_comment_keeps_its_original_place_and_hunk_not_a_current_line() {
        let c = &parse_comments(
            r#"[{"path": "a.py", "line": null, "original_line": 40, "original_commit_id": "abc1234",
                 "diff_hunk": "@@ -38,3 +38,3 @@\n x = 1\n y = 2\n z = 3", "body": "rename z"}]"#,
        )
        .unwrap()[0];
        assert_eq!((c.line, c.original_line), (None, Some(40)));
        assert_eq!(c.outdated, Some(true));
        assert_eq!(c.original_commit.as_deref(), Some("abc1234"));
        assert!(c.diff_hunk.as_deref().unwrap().ends_with("z = 3"));
        // Without a hunk, the original line is the best place there is.
        let plain =
            &parse_comments(r#"[{"path": "a.py", "original_line": 7, "body": "x"}]"#).unwrap()[0];
        assert_eq!(plain.line, Some(7));
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(
            parse_comments("[{\"body\": \"x\",]")
                .unwrap_err()
                .to_string()
                .starts_with("comments must be JSON (line 1, column")
        );
        assert_eq!(
            parse_comments("{\"a\": 1}").unwrap_err().to_string(),
            "comments JSON must be an array or { comments: [...] }"
        );
        assert_eq!(
            parse_comments("[{\"body\": \" \"}]")
                .unwrap_err()
                .to_string(),
            "comments[0].body must be a non-empty string"
        );
        assert!(matches!(
            parse_comments("[{\"body\": \" \"}]"),
            Err(CommentsError::NoBody(0))
        ));
        assert_eq!(
            format!("{}", CommentsError::TooMany(501)),
            format!("comments JSON has 501 comments; the limit is {MAX_COMMENTS}")
        );
        let long = format!("[{{\"body\": \"{}\"}}]", "x".repeat(4001));
        assert!(parse_comments(&long).unwrap()[0].body_truncated);
        assert!(looks_like_broken_json("[{\"body\": "));
        assert!(!looks_like_broken_json("FAIL src/a.test.ts"));
    }
}
