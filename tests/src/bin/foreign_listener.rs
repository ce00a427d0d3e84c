//! Another local user's listener, for the security tests: binds a Unix socket at the path it is
//! given (run under a second uid), prints `ready`, then for every connection prints `accepted`
//! and, once the client has gone, `received <bytes>` (or `sentinel` for a connection that sent
//! exactly `sentinel`: the test's marker that every earlier connection was accepted). A client
//! that checks its daemon properly never sends it a byte.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::time::Duration;

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: foreign-listener <socket path>");
        std::process::exit(64);
    };
    let listener = match UnixListener::bind(&path) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("foreign-listener: cannot bind: {e}");
            std::process::exit(71);
        }
    };
    // Anyone may connect, as a hostile listener would allow.
    let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777));
    say("ready");
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        say("accepted");
        std::thread::spawn(move || {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => seen.extend_from_slice(&buf[..n]),
                }
            }
            if seen == b"sentinel" {
                say("sentinel");
            } else {
                say(&format!("received {}", seen.len()));
            }
        });
    }
}
