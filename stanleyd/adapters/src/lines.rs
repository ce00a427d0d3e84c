//! Lines from a child process's output, each held only up to a bound: a longer line is read
//! through and reported as too long, never kept, so no process grows the daemon's memory with
//! one line; the bytes are handed on as they are, so a line that is not UTF-8 is one line to
//! skip, not the end of the stream (issue 36).

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// One line read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// The line, without its `\n` (and a `\r` before it), in the buffer given.
    Whole,
    /// The line ran past the bound; nothing of it was kept.
    TooLong,
}

/// Reads the next line into `buf` (cleared first), keeping at most `max` bytes of it; `None` at
/// the end of the stream or on a read error.
pub(crate) async fn next_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> Option<Line> {
    buf.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(b) => b,
        };
        read_any = true;
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        if buf.len() + chunk.len() > max {
            too_long = true;
            buf.clear();
        } else if !too_long {
            buf.extend_from_slice(chunk);
        }
        let n = chunk.len();
        reader.consume(n);
        if done {
            break;
        }
    }
    if !read_any {
        return None;
    }
    if too_long {
        return Some(Line::TooLong);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Some(Line::Whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_past_the_bound_are_dropped_and_odd_bytes_kept() {
        let input: &[u8] = b"short\r\n0123456789abcdefghij\n\xff\xfe not utf-8\nlast";
        let mut reader = tokio::io::BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let mut seen = Vec::new();
        while let Some(line) = next_line(&mut reader, &mut buf, 16).await {
            seen.push((line, buf.clone()));
        }
        assert_eq!(
            seen,
            [
                (Line::Whole, b"short".to_vec()),
                (Line::TooLong, Vec::new()),
                (Line::Whole, b"\xff\xfe not utf-8".to_vec()),
                (Line::Whole, b"last".to_vec()),
            ]
        );
    }
}
