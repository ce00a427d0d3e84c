//! Another local user's web server, for the page tests: run under a second uid with the port of
//! Stanley's page, it listens on another loopback port, prints `ready <port>`, and for every
//! request prints one line, `request ` and the request's head with its lines joined by tabs
//! (request line and every header, as received). Every answer is a page that sets cookies named
//! like the page's (`stanley_ui_<page port>=x; Path=/` and a few more, as cookie tossing would)
//! and makes a same-origin `fetch` to `/seen`, so the browser sends whatever cookies it holds for
//! 127.0.0.1. Nothing the browser sends this server may carry the page's token.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Reads one request's head (up to the blank line, at most 64 KiB).
fn head(stream: &mut TcpStream) -> Option<String> {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
        if seen.len() > 64 * 1024 {
            break;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    if seen.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(&seen);
    let head = text.split("\r\n\r\n").next().unwrap_or("");
    Some(head.split("\r\n").collect::<Vec<_>>().join("\t"))
}

fn answer(stream: &mut TcpStream, page_port: &str) {
    let body = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Elsewhere</title>\
        </head><body><h1>Another user's page</h1><p id=\"seen\">waiting</p><script>\
        fetch('/seen', {credentials: 'include'}).then(function (r) { return r.text(); })\
        .then(function (t) { document.getElementById('seen').textContent = t; });\
        </script></body></html>\n";
    let cookies = [
        format!("stanley_ui_{page_port}=x; Path=/"),
        "stanley_ui=x; Path=/".to_owned(),
        "token=x; Path=/".to_owned(),
        format!("stanley_{page_port}=x; Path=/"),
    ];
    let mut reply = String::from("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n");
    for cookie in cookies {
        reply.push_str(&format!("Set-Cookie: {cookie}\r\n"));
    }
    reply.push_str(&format!(
        "Cache-Control: no-store\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ));
    let _ = stream.write_all(reply.as_bytes());
    let _ = stream.flush();
}

fn main() {
    let Some(page_port) = std::env::args().nth(1) else {
        eprintln!("usage: foreign-page <the Stanley page's port>");
        std::process::exit(64);
    };
    let listener = match TcpListener::bind(("127.0.0.1", 0)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("foreign-page: cannot listen: {e}");
            std::process::exit(71);
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    say(&format!("ready {port}"));
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let page_port = page_port.clone();
        std::thread::spawn(move || {
            // A browser may open a connection it never uses.
            let Some(head) = head(&mut stream) else {
                return;
            };
            say(&format!("request {head}"));
            answer(&mut stream, &page_port);
        });
    }
}
