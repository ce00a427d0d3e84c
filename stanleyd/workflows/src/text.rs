//! Text helpers: the action guard that classifies a request by its leading verb, request
//! limits for built-ins, and rounding as the reference rounds.

/// What a request asks to be done, when it asks for an action rather than an analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Implement, fix, refactor, write… code.
    CodeChange,
    /// Commit, push, deploy, run the tests…
    ExternalAction,
}

impl Action {
    /// The wire spelling used in fallback details.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::CodeChange => "code_change",
            Action::ExternalAction => "external_action",
        }
    }
}

const POLITE: &[&str] = &[
    "please",
    "can you",
    "could you",
    "would you",
    "i need you to",
    "i want you to",
    "help me",
    "let's",
];
const CODE_VERBS: &[&str] = &[
    "fix",
    "implement",
    "build",
    "create",
    "develop",
    "refactor",
    "edit",
    "modify",
    "update",
    "write",
    "add",
    "remove",
    "make",
    "solve",
    "apply",
];
const EXTERNAL_VERBS: &[&str] = &[
    "commit", "push", "deploy", "reply", "resolve", "merge", "revert",
];
const RUN_OBJECTS: &[&str] = &[
    "test",
    "tests",
    "build",
    "lint",
    "typecheck",
    "command",
    "script",
];

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `text` starts with `word` followed by a word boundary.
fn starts_with_word(text: &str, word: &str) -> bool {
    text.strip_prefix(word)
        .is_some_and(|rest| !rest.chars().next().is_some_and(is_word_char))
}

fn normalize(request: &str) -> String {
    let mut text = request.trim().to_lowercase();
    loop {
        let before = text.len();
        for prefix in POLITE {
            if let Some(rest) = text.strip_prefix(prefix)
                && rest.starts_with(char::is_whitespace)
            {
                text = rest.trim_start().to_owned();
            }
        }
        if text.len() == before {
            return text;
        }
    }
}

/// Classifies a request by its leading verb (after politeness prefixes), or None when it is not
/// an action.
pub fn classify_action(request: &str) -> Option<Action> {
    let text = normalize(request);
    if CODE_VERBS.iter().any(|v| starts_with_word(&text, v)) {
        return Some(Action::CodeChange);
    }
    if EXTERNAL_VERBS.iter().any(|v| starts_with_word(&text, v)) {
        return Some(Action::ExternalAction);
    }
    for verb in ["run", "execute"] {
        if let Some(rest) = text.strip_prefix(verb)
            && rest.starts_with(char::is_whitespace)
        {
            let rest = rest.trim_start();
            let rest = rest
                .strip_prefix("the")
                .filter(|r| r.starts_with(char::is_whitespace))
                .map_or(rest, str::trim_start);
            if RUN_OBJECTS.iter().any(|o| starts_with_word(rest, o)) {
                return Some(Action::ExternalAction);
            }
        }
    }
    None
}

/// The longest request text a built-in accepts, in characters.
pub const MAX_TASK_CHARS: usize = 4000;

/// Why a built-in's request text is refused (`label` names it: "task", "request").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestTextError {
    #[error("{label} text is required")]
    Blank { label: &'static str },
    #[error("{label} text is {chars} characters; the limit is {MAX_TASK_CHARS}")]
    TooLong { label: &'static str, chars: usize },
}

/// Checks a built-in's request text: non-blank and at most 4000 characters.
pub fn check_request_text(text: &str, label: &'static str) -> Result<(), RequestTextError> {
    if text.trim().is_empty() {
        return Err(RequestTextError::Blank { label });
    }
    let chars = text.chars().count();
    if chars > MAX_TASK_CHARS {
        return Err(RequestTextError::TooLong { label, chars });
    }
    Ok(())
}

/// Whether `word` occurs in `text` as a whole word (ASCII word boundaries).
pub fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "when", "where", "what", "which",
    "should", "does", "not", "are", "fix", "add", "make", "use",
];

/// Task tokens: camelCase split, lowercased, split on non-alphanumerics, at least 3 characters,
/// no stop words, de-duplicated in first-seen order.
pub fn task_tokens(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len() + 8);
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if c.is_uppercase() && prev.is_some_and(char::is_lowercase) {
            spaced.push(' ');
        }
        spaced.push(c);
        prev = Some(c);
    }
    let mut out: Vec<String> = Vec::new();
    for token in spaced.to_lowercase().split(|c: char| !c.is_alphanumeric()) {
        if token.chars().count() >= 3
            && !STOP_WORDS.contains(&token)
            && !out.iter().any(|t| t == token)
        {
            out.push(token.to_owned());
        }
    }
    out
}

/// Rounds to 3 decimals, half away from zero.
pub fn round3(x: f64) -> f64 {
    let r = (x * 1000.0).round() / 1000.0;
    // Never `-0.0`: a mass that rounds to nothing prints as 0.
    if r == 0.0 { 0.0 } else { r }
}

/// The last `max` characters of `text`.
pub fn tail_chars(text: &str, max: usize) -> String {
    let count = text.chars().count();
    text.chars().skip(count.saturating_sub(max)).collect()
}

/// Most characters of an error message that describes outside input (a decoder's message
/// quotes the value it refused, which may be megabytes).
pub const MAX_ERROR_CHARS: usize = 300;

/// An error message about outside input, cut to [`MAX_ERROR_CHARS`] with `…` when longer, so an
/// error names what and where but never carries the input (issue 36).
pub fn quoting_at_most(message: &str) -> String {
    if message.chars().count() <= MAX_ERROR_CHARS {
        return message.to_owned();
    }
    let mut out: String = message.chars().take(MAX_ERROR_CHARS - 1).collect();
    out.push('…');
    out
}

/// `text` with its first letter upper-cased (`correctness risk` → `Correctness risk`).
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Truncates to `max` characters, appending `…` when anything was cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}

/// The widest line a report or a fallback writes, in characters (issue 34).
pub const WIDTH: usize = 100;

/// `text` cut at spaces into lines of at most [`WIDTH`] characters; every line after the
/// first is indented by `indent`. A word longer than a line stays whole on its own line.
pub fn wrap(text: &str, indent: usize) -> Vec<String> {
    if text.chars().count() <= WIDTH {
        return vec![text.to_owned()];
    }
    let lead: String = text.chars().take_while(|c| *c == ' ').collect();
    let pad = " ".repeat(indent);
    let mut out = Vec::new();
    let mut line = lead.clone();
    let mut fresh = true;
    for word in text[lead.len()..].split(' ') {
        let width = line.chars().count();
        let add = word.chars().count() + usize::from(!fresh);
        if !fresh && width + add > WIDTH {
            out.push(std::mem::replace(&mut line, pad.clone()));
            fresh = true;
        }
        if !fresh {
            line.push(' ');
        }
        line.push_str(word);
        fresh = false;
    }
    out.push(line);
    out
}

/// A paragraph of prose as lines of at most [`WIDTH`] characters.
pub fn paragraph(text: &str) -> String {
    wrap(text, 0).join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_guard() {
        let cases = [
            ("Fix the security issue", Some(Action::CodeChange)),
            ("please could you add docs/x.md", Some(Action::CodeChange)),
            ("Let's refactor this", Some(Action::CodeChange)),
            ("Deploy this branch", Some(Action::ExternalAction)),
            ("run the tests", Some(Action::ExternalAction)),
            ("Execute lint now", Some(Action::ExternalAction)),
            ("run away", None),
            ("Fixture review", None),
            ("Audit the TODO comments", None),
            ("Summarize what changed", None),
            ("Review these changes for correctness bugs", None),
        ];
        for (text, want) in cases {
            assert_eq!(classify_action(text), want, "{text}");
        }
    }

    #[test]
    fn request_limits() {
        assert_eq!(
            check_request_text(" ", "request").unwrap_err(),
            RequestTextError::Blank { label: "request" }
        );
        assert_eq!(
            check_request_text(" ", "request").unwrap_err().to_string(),
            "request text is required"
        );
        let long = "x".repeat(4001);
        assert_eq!(
            check_request_text(&long, "task").unwrap_err().to_string(),
            "task text is 4001 characters; the limit is 4000"
        );
        assert!(check_request_text(&"é".repeat(4000), "task").is_ok());
    }

    #[test]
    fn words_and_tokens() {
        assert!(has_word("if (a) return", "if"));
        assert!(!has_word("verify", "if"));
        assert!(has_word("x.auth = 1", "auth"));
        assert!(!has_word("author", "auth"));
        assert_eq!(
            task_tokens("applyDiscount to the Cart, fix cart"),
            ["apply", "discount", "cart"]
        );
    }

    #[test]
    fn rounding_and_truncation() {
        assert_eq!(round3(0.12345), 0.123);
        assert_eq!(round3(0.0005), 0.001);
        // A mass that rounds to nothing is 0, never -0 (`"concernMass": -0.0` in a document).
        assert_eq!(round3(-0.0001).to_string(), "0");
        assert_eq!(serde_json::json!(round3(-1e-12)).to_string(), "0.0");
        assert_eq!(truncate_chars("abcdef", 3), "abc…");
        assert_eq!(truncate_chars("abc", 3), "abc");
    }
}
