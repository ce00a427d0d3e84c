//! Stanley's product logic: diff evidence, path classification, the built-in workflows and their
//! policies, routing policy, the action guard and fallback texts. Performs no I/O: everything
//! outside the process is reached through the ports in [`ports`].

#![cfg_attr(not(test), forbid(unsafe_code))]

/// A newtype id's text, shown and borrowed as that text (`runs::RunId`, `improve::JobId`): its
/// `as_str`, `Display` and `AsRef<str>`, written once.
macro_rules! text_id {
    ($id:ident) => {
        impl $id {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $id {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $id {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

pub mod agent;
pub mod analysis;
pub mod builtin;
pub mod change;
pub mod check;
pub mod declared;
pub mod diff;
pub mod exclusion;
pub mod find;
pub mod flow;
pub mod glob;
pub mod improve;
pub mod judge;
pub mod ladder;
pub mod order;
pub mod paths;
pub mod policy;
pub mod ports;
pub mod registry;
pub mod renames;
pub mod result;
pub mod routing;
pub mod run;
pub mod runs;
pub mod sarif;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod time;
pub mod triage;
pub mod trust;
