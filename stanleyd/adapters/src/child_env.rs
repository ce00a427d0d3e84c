//! One policy for the environment of every child process that runs repository-controlled code
//! (the workflow host, the candidate-validation host, flow checks and notify commands): the
//! request's environment without Jev's credentials. Workflows reach Jev only through `judge`,
//! and a check has no business with the key, so code that arrives with a branch never sees it.

use std::collections::HashMap;

/// The variables holding a Jev key: redacted by value everywhere and withheld from repository
/// code.
pub const JEV_KEY_VARS: [&str; 3] = [
    "TYPESAFE_API_KEY",
    "COPILOT_MCP_TYPESAFE_API_KEY",
    "JEV_API_KEY",
];

/// Whether a variable is withheld from repository code: every `TYPESAFE_*` setting and every
/// name in [`JEV_KEY_VARS`].
pub fn is_withheld(name: &str) -> bool {
    name.starts_with("TYPESAFE_") || JEV_KEY_VARS.contains(&name)
}

/// The environment repository code runs with.
pub fn for_repository_code(env: &HashMap<String, String>) -> HashMap<String, String> {
    env.iter()
        .filter(|(k, _)| !is_withheld(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_jev_key_and_typesafe_setting_is_withheld() {
        let env: HashMap<String, String> = [
            "TYPESAFE_API_KEY",
            "COPILOT_MCP_TYPESAFE_API_KEY",
            "JEV_API_KEY",
            "TYPESAFE_BASE_URL",
            "PATH",
            "HOME",
            "GITHUB_TOKEN",
        ]
        .iter()
        .map(|k| (k.to_string(), "v".to_owned()))
        .collect();
        let mut kept: Vec<String> = for_repository_code(&env).into_keys().collect();
        kept.sort();
        // Other credentials are the user's own business (D-11): a check may need GITHUB_TOKEN.
        assert_eq!(kept, ["GITHUB_TOKEN", "HOME", "PATH"]);
        for name in JEV_KEY_VARS {
            assert!(is_withheld(name), "{name}");
        }
    }
}
