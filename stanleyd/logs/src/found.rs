//! One failure as a reader found it, before it becomes a block.

/// One failure a runner reported.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// 0-based first line in the log (documents: the failure's index).
    pub start: usize,
    pub lines: Vec<String>,
    pub name: Option<String>,
    pub message: Option<String>,
    pub anchor: &'static str,
    /// A JUnit case whose text holds only run and result lines (a go parent of failed subtests).
    pub bare: bool,
}

/// Longest block kept; longer blocks keep their head and report the rest as omitted.
pub(crate) const MAX_BLOCK: usize = 160;
