//! The command line and the environment as the operating system hands them over: bytes that
//! need not be UTF-8. A bad argument is a usage error and a bad value of a variable Stanley reads
//! is an input error, each one line; a non-UTF-8 variable Stanley does not read is left out of
//! the request's environment. Nothing here panics.

use std::collections::HashMap;
use std::ffi::OsString;

use crate::exit::ClientError;

/// The arguments after the program name, each checked to be UTF-8.
pub fn args() -> Result<Vec<String>, ClientError> {
    args_from(std::env::args_os().skip(1))
}

/// [`args`] over any argument list (tests).
pub fn args_from(raw: impl IntoIterator<Item = OsString>) -> Result<Vec<String>, ClientError> {
    raw.into_iter()
        .enumerate()
        .map(|(i, a)| {
            a.into_string().map_err(|a| {
                ClientError::usage(format!(
                    "argument {} is not valid UTF-8: {}",
                    i + 1,
                    a.to_string_lossy()
                ))
            })
        })
        .collect()
}

/// Whether Stanley (or the daemon on the request's behalf) reads this variable, so that a bad
/// value must be reported rather than skipped.
fn is_ours(name: &str) -> bool {
    name.starts_with("TYPESAFE_")
        || name.starts_with("STANLEY_")
        || matches!(
            name,
            "COPILOT_MCP_TYPESAFE_API_KEY" | "JEV_API_KEY" | "PATH" | "HOME"
        )
}

/// The caller's environment for a request.
pub fn request_env() -> Result<HashMap<String, String>, ClientError> {
    env_from(std::env::vars_os())
}

/// [`request_env`] over any list of pairs (tests).
pub fn env_from(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
) -> Result<HashMap<String, String>, ClientError> {
    let mut env = HashMap::new();
    for (name, value) in vars {
        let Ok(name) = name.into_string() else {
            continue;
        };
        match value.into_string() {
            Ok(value) => {
                env.insert(name, value);
            }
            Err(_) if is_ours(&name) => {
                return Err(ClientError::input(format!(
                    "the environment variable {name} is not valid UTF-8"
                )));
            }
            Err(_) => {}
        }
    }
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStringExt;

    fn bad() -> OsString {
        OsString::from_vec(vec![b'a', 0xff, b'b'])
    }

    #[test]
    fn bad_arguments_are_usage_errors() {
        let err = args_from([OsString::from("ok"), bad()]).unwrap_err();
        assert_eq!(err.exit_code(), 64);
        assert_eq!(err.message, "argument 2 is not valid UTF-8: a\u{fffd}b");
        assert_eq!(args_from([OsString::from("x")]).unwrap(), ["x"]);
    }

    #[test]
    fn bad_variables_are_skipped_unless_read() {
        let env = env_from([
            (OsString::from("LS_COLORS"), bad()),
            (bad(), OsString::from("x")),
            (OsString::from("HOME"), OsString::from("/h")),
        ])
        .unwrap();
        assert_eq!(env.len(), 1);
        assert_eq!(env["HOME"], "/h");
        let err = env_from([(OsString::from("TYPESAFE_API_KEY"), bad())]).unwrap_err();
        assert_eq!(err.exit_code(), 65);
        assert!(err.message.contains("TYPESAFE_API_KEY"), "{err:?}");
    }
}
