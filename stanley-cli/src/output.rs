//! Standard output that never panics: `outln!` and `out!` write and flush, and a failed write
//! ends the command at once. A closed pipe (`stanley ... | head`) ends it quietly with 141, as
//! Unix tools killed by SIGPIPE do; any other failure (`> /dev/full`) says so in one line on
//! stderr and exits 74, so a script never mistakes lost output for success.

use std::io::Write;

use stanley_proto::exit::Exit;

/// Writes `text` to stdout and flushes; on failure, reports it and exits.
pub fn write_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        drop(out);
        fail(&e);
    }
}

fn fail(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(i32::from(Exit::BrokenPipe.code()));
    }
    let program = std::env::args_os()
        .next()
        .and_then(|p| {
            std::path::Path::new(&p)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "stanley".to_owned());
    let _ = writeln!(
        std::io::stderr(),
        "{program}: output error: cannot write to standard output: {e}"
    );
    std::process::exit(i32::from(Exit::Output.code()));
}

/// `println!` for standard output that reports a failed write instead of panicking.
#[macro_export]
macro_rules! outln {
    () => { $crate::output::write_stdout("\n") };
    ($($arg:tt)*) => { $crate::output::write_stdout(&format!("{}\n", format_args!($($arg)*))) };
}

/// `print!` for standard output that reports a failed write instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write_stdout(&format!($($arg)*)) };
}

/// `eprintln!` that never panics: a closed or full stderr loses the line, nothing else.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that never panics.
#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}
