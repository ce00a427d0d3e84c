//! Triage of what a person brings: failing test logs (`logs` parses them, `failures` judges
//! them) and review comments (`review_comments` parses them, `comments` judges them).

pub mod comments;
pub mod failures;
pub mod logs;
pub mod review_comments;
