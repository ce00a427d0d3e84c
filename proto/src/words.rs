//! The wire's fixed values and their words: each `stanley.v1` enum spelled once as the word
//! its deprecated string field carried (`complete`, `read-only`, `not trusted`), so a daemon
//! fills both for older clients in one call and a client reads the enum, falling back to an
//! older daemon's word.

use crate::v1;

/// Declares, for a prost enum of `stanley.v1`, its known values (all but `Unspecified`) and
/// the word each is written as in the field the enum replaces.
macro_rules! wire_words {
    ($( $enum:ident { $( $variant:ident = $word:literal, )+ } )+) => {$(
        impl v1::$enum {
            /// Every value but the unspecified one, in declaration order.
            pub const KNOWN: &'static [v1::$enum] = &[$( v1::$enum::$variant, )+];

            /// The word the deprecated string field carries; empty for the unspecified value.
            pub const fn word(self) -> &'static str {
                match self {
                    v1::$enum::Unspecified => "",
                    $( v1::$enum::$variant => $word, )+
                }
            }

            /// The value a word names, if any.
            pub fn from_word(word: &str) -> Option<Self> {
                match word {
                    $( $word => Some(v1::$enum::$variant), )+
                    _ => None,
                }
            }

            /// This value, or when it is unspecified (an older peer), the one `word` names.
            pub fn or_word(self, word: &str) -> Self {
                match self {
                    v1::$enum::Unspecified => Self::from_word(word).unwrap_or(self),
                    known => known,
                }
            }
        }
    )+};
}

wire_words! {
    Outcome {
        Complete = "complete",
        Incomplete = "incomplete",
        BudgetExhausted = "budget_exhausted",
        Unsupported = "unsupported",
        Error = "error",
    }
    CheckState { Ok = "ok", Warn = "warn", Fail = "fail", }
    ErrorKind {
        Usage = "usage",
        Input = "input",
        Configuration = "configuration",
        Unavailable = "unavailable",
        Internal = "internal",
        JevAuth = "jev_auth",
        JevUnreachable = "jev_unreachable",
        JevUnavailable = "jev_unavailable",
        Interrupted = "interrupted",
        Terminated = "terminated",
    }
    InputShape {
        None = "none",
        FailureLog = "failure_log",
        ReviewComments = "review_comments",
        Text = "text",
    }
    JobState { Pending = "pending", Active = "active", Done = "done", }
    JobOutcome { Validated = "validated", Rejected = "rejected", Requeued = "requeued", }
    RunStatus {
        Complete = "complete",
        Incomplete = "incomplete",
        BudgetExhausted = "budget_exhausted",
        Unsupported = "unsupported",
        Interrupted = "interrupted",
        Failed = "failed",
        Running = "running",
        Unknown = "unknown",
    }
    Scope { Worktree = "worktree", Staged = "staged", Branch = "branch", }
    ExportFormat { Sarif = "sarif", Json = "json", }
    CacheMode { ReadWrite = "read-write", ReadOnly = "read-only", }
    TrustState {
        Absent = "absent",
        Trusted = "trusted",
        NotTrusted = "not trusted",
        Changed = "changed",
    }
    HookEvent {
        SessionStart = "session-start",
        Stop = "stop",
        PreToolUse = "pre-tool-use",
        PostToolUse = "post-tool-use",
        SubagentStop = "subagent-stop",
        TaskCompleted = "task-completed",
    }
}

// The messages that carry a deprecated word beside its enum: the sender fills the word from
// the enum (`with_words`), the receiver reads the enum or, from an older peer, the word. These
// are the only places the deprecated fields are touched.
#[allow(deprecated)]
mod legacy {
    use crate::v1;

    impl v1::Check {
        /// How the check came out.
        pub fn resolved_check_state(&self) -> v1::CheckState {
            self.check_state().or_word(&self.state)
        }

        /// With `state` written for older clients.
        pub fn with_words(mut self) -> Self {
            self.state = self.check_state().word().to_owned();
            self
        }
    }

    impl v1::ErrorInfo {
        /// What kind of failure it was.
        pub fn resolved_error_kind(&self) -> v1::ErrorKind {
            self.error_kind().or_word(&self.kind)
        }

        /// With `kind` written for older clients.
        pub fn with_words(mut self) -> Self {
            self.kind = self.error_kind().word().to_owned();
            self
        }
    }

    impl v1::Job {
        /// The shape of the input the job was queued with.
        pub fn resolved_shape(&self) -> v1::InputShape {
            self.shape().or_word(&self.input_shape)
        }

        /// Where the job is.
        pub fn resolved_job_state(&self) -> v1::JobState {
            self.job_state().or_word(&self.state)
        }

        /// With `input_shape` and `state` written for older clients.
        pub fn with_words(mut self) -> Self {
            self.input_shape = self.shape().word().to_owned();
            self.state = self.job_state().word().to_owned();
            self
        }
    }

    impl v1::ProcessedJob {
        /// What became of the job.
        pub fn resolved_outcome(&self) -> v1::JobOutcome {
            self.outcome().or_word(&self.status)
        }

        /// With `status` written for older clients.
        pub fn with_words(mut self) -> Self {
            self.status = self.outcome().word().to_owned();
            self
        }
    }

    impl v1::RunSummary {
        /// How the run ended, or that it is still going.
        pub fn resolved_run_status(&self) -> v1::RunStatus {
            self.run_status().or_word(&self.status)
        }

        /// The diff selection it read; unspecified when it read none.
        pub fn resolved_diff_scope(&self) -> v1::Scope {
            self.diff_scope().or_word(&self.scope)
        }

        /// With `status` and `scope` written for older clients.
        pub fn with_words(mut self) -> Self {
            self.status = self.run_status().word().to_owned();
            self.scope = self.diff_scope().word().to_owned();
            self
        }
    }

    impl v1::ExportRunRequest {
        /// The format asked for: `export_format`, or an older client's `format` word. `None`
        /// for a word this daemon does not know.
        pub fn resolved_export_format(&self) -> Option<v1::ExportFormat> {
            match self.export_format() {
                v1::ExportFormat::Unspecified if self.format.is_empty() => {
                    Some(v1::ExportFormat::Sarif)
                }
                v1::ExportFormat::Unspecified => v1::ExportFormat::from_word(&self.format),
                known => Some(known),
            }
        }

        /// The word an older daemon reads, kept as given when the format was unset.
        pub fn format_word(&self) -> &str {
            match self.export_format() {
                v1::ExportFormat::Unspecified => &self.format,
                known => known.word(),
            }
        }

        /// With `format` written for older daemons.
        pub fn with_words(mut self) -> Self {
            if self.export_format() != v1::ExportFormat::Unspecified {
                self.format = self.export_format().word().to_owned();
            }
            self
        }
    }

    impl v1::TeamCacheStats {
        /// Whether the level may write.
        pub fn resolved_cache_mode(&self) -> v1::CacheMode {
            self.cache_mode().or_word(&self.mode)
        }

        /// With `mode` written for older clients.
        pub fn with_words(mut self) -> Self {
            self.mode = self.cache_mode().word().to_owned();
            self
        }
    }

    impl v1::TrustPart {
        /// How the part stands.
        pub fn resolved_trust_state(&self) -> v1::TrustState {
            self.trust_state().or_word(&self.state)
        }

        /// With `state` written for older clients.
        pub fn with_words(mut self) -> Self {
            self.state = self.trust_state().word().to_owned();
            self
        }
    }

    impl v1::FlowHookRequest {
        /// The event: `hook_event`, or an older client's `event` word. The word as sent when
        /// it names no event this daemon knows.
        pub fn resolved_hook_event(&self) -> Result<v1::HookEvent, &str> {
            match self.hook_event().or_word(&self.event) {
                v1::HookEvent::Unspecified => Err(&self.event),
                known => Ok(known),
            }
        }

        /// With `event` written for older daemons.
        pub fn with_words(mut self) -> Self {
            self.event = self.hook_event().word().to_owned();
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::v1;

    /// Each enum's words: every known value has a distinct, non-empty word that names it back,
    /// and the unspecified value has none.
    macro_rules! check_words {
        ($($enum:ident),+) => {$({
            let known = v1::$enum::KNOWN;
            let mut seen = std::collections::BTreeSet::new();
            for &value in known {
                let word = value.word();
                assert!(!word.is_empty(), "{value:?}");
                assert!(seen.insert(word), "{word} twice");
                assert_eq!(v1::$enum::from_word(word), Some(value));
                assert_eq!(v1::$enum::Unspecified.or_word(word), value);
                // A value the enum sets wins over any word beside it.
                assert_eq!(value.or_word("nonsense"), value);
            }
            assert_eq!(v1::$enum::Unspecified.word(), "");
            assert_eq!(v1::$enum::from_word(""), None);
            // Every value prost knows but `Unspecified` is listed.
            let all = (0..64).filter(|&i| v1::$enum::try_from(i).is_ok()).count();
            assert_eq!(all, known.len() + 1, stringify!($enum));
        })+};
    }

    #[test]
    fn each_wire_enum_has_one_word_per_value() {
        check_words!(
            Outcome,
            CheckState,
            ErrorKind,
            InputShape,
            JobState,
            JobOutcome,
            RunStatus,
            Scope,
            ExportFormat,
            CacheMode,
            TrustState,
            HookEvent
        );
    }

    #[test]
    fn the_enum_is_read_first_and_an_older_peers_word_after() {
        let newer = v1::RunSummary {
            run_status: v1::RunStatus::Failed as i32,
            ..Default::default()
        }
        .with_words();
        assert_eq!(newer.resolved_run_status(), v1::RunStatus::Failed);
        #[allow(deprecated)]
        let older = v1::RunSummary {
            status: "budget_exhausted".into(),
            scope: "staged".into(),
            ..Default::default()
        };
        assert_eq!(older.resolved_run_status(), v1::RunStatus::BudgetExhausted);
        assert_eq!(older.resolved_diff_scope(), v1::Scope::Staged);
        #[allow(deprecated)]
        {
            assert_eq!(newer.status, "failed");
            assert_eq!(newer.scope, "");
        }
    }

    #[test]
    fn an_export_format_is_sarif_unless_named_and_an_unknown_word_is_no_format() {
        let unset = v1::ExportRunRequest::default();
        assert_eq!(
            unset.resolved_export_format(),
            Some(v1::ExportFormat::Sarif)
        );
        #[allow(deprecated)]
        let worded = v1::ExportRunRequest {
            format: "json".into(),
            ..Default::default()
        };
        assert_eq!(
            worded.resolved_export_format(),
            Some(v1::ExportFormat::Json)
        );
        #[allow(deprecated)]
        let unknown = v1::ExportRunRequest {
            format: "csv".into(),
            ..Default::default()
        };
        assert_eq!(unknown.resolved_export_format(), None);
        assert_eq!(unknown.format_word(), "csv");
        let typed = v1::ExportRunRequest {
            export_format: v1::ExportFormat::Json as i32,
            ..Default::default()
        }
        .with_words();
        assert_eq!(typed.resolved_export_format(), Some(v1::ExportFormat::Json));
    }

    #[test]
    fn a_hook_event_no_one_knows_is_returned_as_sent() {
        #[allow(deprecated)]
        let odd = v1::FlowHookRequest {
            event: "Stop".into(),
            ..Default::default()
        };
        assert_eq!(odd.resolved_hook_event(), Err("Stop"));
        let typed = v1::FlowHookRequest {
            hook_event: v1::HookEvent::PreToolUse as i32,
            ..Default::default()
        }
        .with_words();
        assert_eq!(typed.resolved_hook_event(), Ok(v1::HookEvent::PreToolUse));
    }
}
