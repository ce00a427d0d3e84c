//! Path globs for rule scopes: `**/` (any leading folders, none included), `**` (anything), `*`
//! (anything but `/`), `?` (one character but `/`) and `{a,b}` alternation; anchored.

/// Expands `{a,b}` alternations into plain patterns.
fn expand(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else {
        return vec![pattern.to_owned()];
    };
    let Some(close) = pattern[open..].find('}').map(|i| open + i) else {
        return vec![pattern.to_owned()];
    };
    let (head, body, tail) = (
        &pattern[..open],
        &pattern[open + 1..close],
        &pattern[close + 1..],
    );
    body.split(',')
        .flat_map(|alt| expand(&format!("{head}{alt}{tail}")))
        .collect()
}

fn matches_from(p: &[char], s: &[char]) -> bool {
    match p.first() {
        None => s.is_empty(),
        Some('*') if p.get(1) == Some(&'*') => {
            // `**/` may match no folder at all.
            if p.get(2) == Some(&'/') && matches_from(&p[3..], s) {
                return true;
            }
            (0..=s.len()).any(|i| matches_from(&p[2..], &s[i..]))
        }
        Some('*') => (0..=s.len())
            .take_while(|&i| i == 0 || s[i - 1] != '/')
            .any(|i| matches_from(&p[1..], &s[i..])),
        Some('?') => s.first().is_some_and(|c| *c != '/') && matches_from(&p[1..], &s[1..]),
        Some(c) => s.first() == Some(c) && matches_from(&p[1..], &s[1..]),
    }
}

/// Whether `path` matches `pattern` in full.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    let s: Vec<char> = path.chars().collect();
    expand(pattern).iter().any(|p| {
        let p: Vec<char> = p.chars().collect();
        matches_from(&p, &s)
    })
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("**", "a/b/c.ts"));
        assert!(glob_match("src/**", "src/a/b.ts"));
        assert!(glob_match("**/*.ts", "a.ts"));
        assert!(glob_match("**/*.ts", "x/y/a.ts"));
        assert!(!glob_match("*.ts", "x/a.ts"));
        assert!(glob_match("src/*.{ts,js}", "src/a.js"));
        assert!(!glob_match("src/*.{ts,js}", "src/a.py"));
        assert!(glob_match("docs/?.md", "docs/a.md"));
        assert!(!glob_match("docs/?.md", "docs/ab.md"));
        assert!(!glob_match("src/**", "lib/a.ts"));
    }
}
