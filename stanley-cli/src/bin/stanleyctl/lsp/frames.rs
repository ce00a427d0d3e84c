//! What reaches the protocol layer from standard input: only well-formed LSP frames
//! (`Content-Length` header, a JSON-RPC 2.0 object as the body). `tower-lsp-server` reads its
//! input through `tokio_util`'s framed reader, which stops reading for good after the first
//! message it cannot decode; so malformed input is taken out here, said in one line on standard
//! error, and reading resumes at the next `Content-Length`. The end of standard input is
//! reported through `gone`: the editor has left.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// The largest message body taken (an editor's whole-file change of a large file fits).
const MAX_BODY: usize = 64 * 1024 * 1024;
/// The largest header block.
const MAX_HEADER: usize = 8 * 1024;

/// Why a framed body is not passed on: the end of the line said on standard error.
#[derive(Debug, thiserror::Error)]
enum Malformed {
    /// It does not parse as JSON.
    #[error("the body is not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// It is JSON, but not an object.
    #[error("the body is not a JSON-RPC object")]
    NotObject,
    /// Its `jsonrpc` is not `"2.0"`.
    #[error("the body is not JSON-RPC 2.0")]
    NotVersion2,
    /// It has neither a method nor an id with a result or error.
    #[error("the body is neither a request nor a response")]
    Neither,
}

/// What one look at the buffer found.
#[derive(Debug)]
enum Next {
    /// A well-formed message body and the bytes it took.
    Message(Vec<u8>, usize),
    /// A framed message whose body is not JSON-RPC: the bytes it took, and why.
    Skip(usize, Malformed),
    /// Bytes before the next header (however they arrive, said once per stretch).
    Garbage(usize),
    /// More input is needed.
    More,
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Where the next header could start after `from` (skipping what came before).
fn resync(buf: &[u8], from: usize) -> usize {
    find(&buf[from.min(buf.len())..], b"Content-Length")
        .map_or(buf.len().saturating_sub(16).max(from.min(buf.len())), |i| {
            from + i
        })
}

/// Whether a body is a JSON-RPC 2.0 request, notification or response.
fn well_formed(body: &[u8]) -> Result<(), Malformed> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(Malformed::NotJson)?;
    let object = value.as_object().ok_or(Malformed::NotObject)?;
    if object.get("jsonrpc").and_then(|v| v.as_str()) != Some("2.0") {
        return Err(Malformed::NotVersion2);
    }
    let method = object.get("method").is_some_and(|m| m.is_string());
    let response = object.contains_key("id")
        && (object.contains_key("result") || object.contains_key("error"));
    if method || response {
        Ok(())
    } else {
        Err(Malformed::Neither)
    }
}

fn next(buf: &[u8]) -> Next {
    let Some(end) = find(buf, b"\r\n\r\n") else {
        return if buf.len() > MAX_HEADER {
            Next::Garbage(resync(buf, 1))
        } else {
            Next::More
        };
    };
    let header = String::from_utf8_lossy(&buf[..end]);
    let length = header.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())
            .flatten()
    });
    let Some(length) = length.filter(|n| *n <= MAX_BODY) else {
        return Next::Garbage(resync(buf, 1));
    };
    let start = end + 4;
    if buf.len() < start + length {
        return Next::More;
    }
    let body = &buf[start..start + length];
    match well_formed(body) {
        Ok(()) => Next::Message(body.to_vec(), start + length),
        Err(why) => Next::Skip(start + length, why),
    }
}

/// Copies the well-formed messages of `input` to `output` until `input` ends, then cancels
/// `gone`.
pub(crate) async fn filter(
    mut input: impl AsyncRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
    gone: CancellationToken,
) {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut in_garbage = false;
    'reading: loop {
        loop {
            match next(&buf) {
                Next::Garbage(used) => {
                    if !in_garbage {
                        stanley_cli::errln!(
                            "stanleyctl: skipped a malformed message: input that is not an LSP header with a Content-Length of at most 64 MiB"
                        );
                    }
                    in_garbage = true;
                    buf.drain(..used.max(1).min(buf.len()));
                }
                Next::Message(body, used) => {
                    in_garbage = false;
                    let frame = format!("Content-Length: {}\r\n\r\n", body.len());
                    if output.write_all(frame.as_bytes()).await.is_err()
                        || output.write_all(&body).await.is_err()
                    {
                        break 'reading;
                    }
                    buf.drain(..used);
                }
                Next::Skip(used, why) => {
                    in_garbage = false;
                    stanley_cli::errln!("stanleyctl: skipped a malformed message: {why}");
                    buf.drain(..used.max(1).min(buf.len()));
                }
                Next::More => break,
            }
        }
        match input.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    gone.cancel();
    let _ = output.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<String> {
        let mut buf = input.to_vec();
        let mut out = Vec::new();
        loop {
            match next(&buf) {
                Next::Message(body, used) => {
                    out.push(String::from_utf8(body).unwrap());
                    buf.drain(..used);
                }
                Next::Skip(used, _) | Next::Garbage(used) => {
                    buf.drain(..used.max(1).min(buf.len()));
                }
                Next::More => return out,
            }
        }
    }

    #[test]
    fn garbage_is_skipped_and_the_next_message_found() {
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        let mut input = b"this is not a message\r\n\r\n".to_vec();
        input.extend_from_slice(b"Content-Length: 7\r\n\r\n{nope!}");
        input.extend_from_slice(b"Content-Length: 2\r\n\r\n[]");
        input.extend_from_slice(b"Content-Length: 4\r\n\r\n\xff\xfe\x00\x01");
        input.extend_from_slice(b"Content-Length: 99999999999\r\n\r\n");
        input.extend_from_slice(format!("Content-Length: {}\r\n\r\n{ok}", ok.len()).as_bytes());
        assert_eq!(frames(&input), [ok]);
        // A header split across reads waits for the rest.
        assert!(matches!(next(b"Content-Len"), Next::More));
        assert!(matches!(
            next(b"Content-Length: 10\r\n\r\n{\"a\""),
            Next::More
        ));
    }

    /// Each way a framed body fails is its own variant, with the line standard error shows.
    #[test]
    fn a_malformed_body_says_what_is_wrong_with_it() {
        let skipped = |body: &str| match next(
            format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes(),
        ) {
            Next::Skip(used, why) => {
                assert_eq!(
                    used,
                    body.len() + 4 + format!("Content-Length: {}", body.len()).len()
                );
                why
            }
            other => panic!("{body}: {other:?}"),
        };
        let not_json = skipped("{nope!}");
        assert!(matches!(not_json, Malformed::NotJson(_)), "{not_json:?}");
        assert!(
            not_json
                .to_string()
                .starts_with("the body is not JSON: key must be a string")
        );
        assert!(matches!(skipped("[]"), Malformed::NotObject));
        let old = skipped(r#"{"jsonrpc":"1.0","method":"x"}"#);
        assert!(matches!(old, Malformed::NotVersion2));
        assert_eq!(old.to_string(), "the body is not JSON-RPC 2.0");
        let neither = skipped(r#"{"jsonrpc":"2.0","id":3}"#);
        assert!(matches!(neither, Malformed::Neither));
        assert_eq!(
            neither.to_string(),
            "the body is neither a request nor a response"
        );
    }

    #[tokio::test]
    async fn messages_pass_and_the_end_of_input_is_reported() {
        let ok = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let input = format!("garbage\r\n\r\nContent-Length: {}\r\n\r\n{ok}", ok.len());
        let (write, mut read) = tokio::io::duplex(1 << 16);
        let gone = CancellationToken::new();
        filter(input.as_bytes(), write, gone.clone()).await;
        assert!(gone.is_cancelled());
        let mut out = String::new();
        read.read_to_string(&mut out).await.unwrap();
        assert_eq!(out, format!("Content-Length: {}\r\n\r\n{ok}", ok.len()));
    }
}
