//! `words!`: an enum for a fixed set of words that a file or the wire spells out, with each
//! word written once (the variant's spelling on disk, `as_str`, `parse` and `ALL` all come from
//! it).
//!
//! ```
//! stanley_core::words! {
//!     /// What asked.
//!     pub enum Asker {
//!         Person = "person",
//!         Agent = "agent",
//!     }
//! }
//! assert_eq!(Asker::Agent.as_str(), "agent");
//! assert_eq!(Asker::parse("person"), Some(Asker::Person));
//! assert_eq!(serde_json::to_string(&Asker::ALL).unwrap(), r#"["person","agent"]"#);
//! ```
//!
//! A variant marked `#[serde(other)]` is what a word this version does not know reads as, so a
//! file written by a later version is still read.

/// Declares a fixed-word enum; see the module's documentation.
#[macro_export]
macro_rules! words {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $word:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $word)] $variant, )+
        }

        impl $name {
            /// Every word, in declaration order.
            $vis const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The word as written.
            $vis fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $word, )+
                }
            }

            /// The variant a word names, if any.
            $vis fn parse(word: &str) -> Option<Self> {
                match word {
                    $( $word => Some($name::$variant), )+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

#[cfg(test)]
mod tests {
    crate::words! {
        /// A test set with a fallback word.
        enum Color {
            Red = "red",
            DarkBlue = "dark_blue",
            #[serde(other)]
            Other = "other",
        }
    }

    #[test]
    fn each_word_is_its_serde_spelling_and_parses_back() {
        for &c in Color::ALL {
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.as_str()));
            assert_eq!(serde_json::from_str::<Color>(&json).unwrap(), c);
            assert_eq!(Color::parse(c.as_str()), Some(c));
            assert_eq!(c.to_string(), c.as_str());
        }
    }

    #[test]
    fn an_unknown_word_reads_as_the_fallback_and_parse_refuses_it() {
        assert_eq!(
            serde_json::from_str::<Color>("\"mauve\"").unwrap(),
            Color::Other
        );
        assert_eq!(Color::parse("mauve"), None);
    }
}
