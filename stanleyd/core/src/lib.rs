//! Stanley's core: Jev questions and answers as types, strict answer validation, budgets, stable
//! hashing and the frame executor. Nothing in this crate performs I/O; the Jev port is a trait
//! the adapters implement.

#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod budget;
pub mod cache;
pub mod cancel;
pub mod envelope;
pub mod executor;
pub mod hash;
pub mod jev;
pub mod validate;
pub mod words;

#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use budget::{Budget, BudgetLimits, BudgetPlan, Denial, PlanAllowance};
pub use cache::{
    CacheKey, CacheUse, CachedAnswers, JudgmentCache, Level, RemoteJudgments, RequestUsage, Tally,
    cost_usd, list_price,
};
pub use cancel::{Cancel, Cancelled, Pace};
pub use envelope::Status;
pub use executor::{
    AttemptRecord, AttemptResult, Executor, ExecutorOptions, FailReason, Frame, FrameFailure,
    FrameId, FrameOk, FrameOutcome, FrameSink, JevStatus, Prepare, Progress, Spread, TroubleCell,
    Usage, WrittenFrame,
};
pub use hash::{
    Field, StableJson, sha256_hex, stable_hash, stable_hash_object, stable_id, stable_json,
};
pub use jev::{
    Answer, Answers, BoxFuture, ErrorClass, Failure, Jev, JevError, JevRequest, JevTrouble,
    Question, Questions,
};
pub use validate::ValidationError;
