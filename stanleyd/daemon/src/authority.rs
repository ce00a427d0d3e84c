//! The `:authority` standard gRPC clients send over a Unix socket, made acceptable to the HTTP/2
//! server. gRPC's C core (Python, Ruby, PHP, C++) sends the percent-encoded socket path
//! (`tmp%2Frt%2Fd.sock`), which is no valid URI authority, and the HTTP/2 layer resets every
//! such stream. The socket is private to the user and checked by peer credentials, so the
//! authority means nothing here: each header block the client sends is decoded (HPACK, with the
//! client's dynamic table) and written again with literal, never-indexed fields, an invalid
//! authority replaced by `localhost`. Every other frame passes through untouched. A connection
//! whose first header block carries a valid authority (Stanley's own clients, grpc-go, grpc-js)
//! is handed over untouched from that block on: the server decodes it with the same table the
//! client encoded it with, and nothing is decoded twice.

use std::collections::HashSet;

use fluke_hpack::Decoder;
use fluke_hpack::decoder::DecoderError;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const HEADERS: u8 = 0x1;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;
/// The largest frame payload the server accepts (HTTP/2's default `SETTINGS_MAX_FRAME_SIZE`).
const MAX_FRAME: usize = 16_384;
/// The largest header block collected across CONTINUATION frames; a longer one closes the
/// connection (requests carry an environment map, far below this).
const MAX_BLOCK: usize = 1024 * 1024;

/// Why a client's byte stream cannot be rewritten: the connection is closed, as the HTTP/2
/// server would have closed it.
#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum FrameError {
    /// A header block grew past [`MAX_BLOCK`] across CONTINUATION frames.
    #[error("a header block over {MAX_BLOCK} bytes")]
    BlockTooLarge,
    /// A padded HEADERS frame has no pad length.
    #[error("empty padded HEADERS frame")]
    EmptyPadded,
    /// The pad length is longer than the frame.
    #[error("HEADERS padding exceeds the frame")]
    PaddingTooLong,
    /// The priority fields are cut short.
    #[error("HEADERS priority is cut short")]
    PriorityCut,
    /// HPACK cannot decode the block.
    #[error("undecodable header block: {0:?}")]
    Undecodable(DecoderError),
}

/// A header block being collected across CONTINUATION frames.
struct Pending {
    stream: u32,
    end_stream: bool,
    priority: Option<[u8; 5]>,
    block: Vec<u8>,
    /// The HEADERS and CONTINUATION frames as they came, to hand over untouched.
    frames: Vec<u8>,
}

/// Rewrites the client-to-server byte stream of one connection.
pub(crate) struct AuthorityFix {
    decoder: Decoder<'static>,
    raw: Vec<u8>,
    preface_seen: bool,
    pending: Option<Pending>,
    /// After a frame larger than the server accepts, or a first header block whose authority
    /// is valid: everything passes through untouched.
    passthrough: bool,
    /// Header blocks are rewritten: the first one's authority was invalid.
    rewriting: bool,
}

impl Default for AuthorityFix {
    fn default() -> Self {
        Self {
            decoder: Decoder::new(),
            raw: Vec::new(),
            preface_seen: false,
            pending: None,
            passthrough: false,
            rewriting: false,
        }
    }
}

/// First header blocks whose authority was valid, by their bytes. A connection's first block is
/// decoded from an empty dynamic table, so the same bytes always decode to the same fields: a
/// client that connects once per request (`stanley`) sends the same block each time, and it is
/// decoded once, not per connection (fluke-hpack builds its Huffman table for every string it
/// decodes: 8% of the daemon's CPU per request, D-258). Bounded: at most
/// [`REMEMBERED_BLOCKS`] blocks of at most [`REMEMBERED_BLOCK_BYTES`] each, forgotten together
/// when full.
static VALID_FIRST_BLOCKS: std::sync::LazyLock<std::sync::Mutex<HashSet<Vec<u8>>>> =
    std::sync::LazyLock::new(Default::default);
const REMEMBERED_BLOCKS: usize = 64;
const REMEMBERED_BLOCK_BYTES: usize = 4096;

fn remembered_valid(block: &[u8]) -> bool {
    VALID_FIRST_BLOCKS
        .lock()
        .is_ok_and(|known| known.contains(block))
}

fn remember_valid(block: &[u8]) {
    if block.len() > REMEMBERED_BLOCK_BYTES {
        return;
    }
    if let Ok(mut known) = VALID_FIRST_BLOCKS.lock() {
        if known.len() >= REMEMBERED_BLOCKS {
            known.clear();
        }
        known.insert(block.to_vec());
    }
}

/// Whether `value` is an authority the HTTP/2 layer accepts: a host (and port) without `%`, `/`
/// or anything else a URI authority cannot hold.
fn valid_authority(value: &[u8]) -> bool {
    !value.is_empty()
        && value.iter().all(|&b| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b':' | b'[' | b']' | b'~')
        })
}

/// An HPACK integer with an `n`-bit prefix, the first byte carrying `flags` above the prefix.
fn integer(out: &mut Vec<u8>, value: usize, n: u8, flags: u8) {
    let max = (1usize << n) - 1;
    if value < max {
        out.push(flags | value as u8);
        return;
    }
    out.push(flags | max as u8);
    let mut rest = value - max;
    while rest >= 128 {
        out.push((rest % 128) as u8 | 0x80);
        rest /= 128;
    }
    out.push(rest as u8);
}

/// A header field as a literal never indexed, with a literal name: the server's dynamic table
/// stays empty, so no state has to match between the client's encoder and the server.
fn literal(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.push(0x10);
    integer(out, name.len(), 7, 0);
    out.extend_from_slice(name);
    integer(out, value.len(), 7, 0);
    out.extend_from_slice(value);
}

fn frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
    let len = payload.len() as u32;
    out.extend_from_slice(&len.to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    out.extend_from_slice(&stream.to_be_bytes());
    out.extend_from_slice(payload);
}

impl AuthorityFix {
    /// Takes bytes read from the client and returns the bytes to hand the server; a partial
    /// frame is kept for the next call. An undecodable header block is an error (the connection
    /// is closed, as the server would have done).
    pub(crate) fn feed(&mut self, input: &[u8]) -> Result<Vec<u8>, FrameError> {
        if self.passthrough {
            return Ok(input.to_vec());
        }
        self.raw.extend_from_slice(input);
        let mut out = Vec::with_capacity(self.raw.len() + 64);
        let mut at = 0;
        if !self.preface_seen {
            if self.raw.len() < PREFACE.len() {
                return Ok(out);
            }
            // Not HTTP/2 with prior knowledge: pass everything through untouched.
            self.preface_seen = true;
            at = PREFACE.len();
            out.extend_from_slice(&self.raw[..at]);
        }
        while self.raw.len() - at >= 9 {
            let head = &self.raw[at..at + 9];
            let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
            if len > MAX_FRAME {
                // Too large for the server: hand it everything as it is and step aside.
                self.passthrough = true;
                out.extend_from_slice(&self.raw[at..]);
                self.raw.clear();
                return Ok(out);
            }
            if self.raw.len() - at < 9 + len {
                break;
            }
            let (kind, flags) = (head[3], head[4]);
            let stream = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
            let whole = self.raw[at..at + 9 + len].to_vec();
            let payload = &whole[9..];
            match kind {
                HEADERS => self.headers(&mut out, flags, stream, payload, &whole)?,
                CONTINUATION if self.pending.as_ref().is_some_and(|p| p.stream == stream) => {
                    if let Some(p) = self.pending.as_mut() {
                        p.block.extend_from_slice(payload);
                        p.frames.extend_from_slice(&whole);
                        if p.block.len() > MAX_BLOCK {
                            return Err(FrameError::BlockTooLarge);
                        }
                    }
                    if flags & END_HEADERS != 0 {
                        self.finish(&mut out)?;
                    }
                }
                _ => out.extend_from_slice(&whole),
            }
            at += 9 + len;
            if self.passthrough {
                // The first block said this client's authority is fine: the rest as it comes.
                out.extend_from_slice(&self.raw[at..]);
                self.raw.clear();
                return Ok(out);
            }
        }
        self.raw.drain(..at);
        Ok(out)
    }

    fn headers(
        &mut self,
        out: &mut Vec<u8>,
        flags: u8,
        stream: u32,
        payload: &[u8],
        whole: &[u8],
    ) -> Result<(), FrameError> {
        let mut body = payload;
        if flags & PADDED != 0 {
            let pad = *body.first().ok_or(FrameError::EmptyPadded)? as usize;
            if pad + 1 > body.len() {
                return Err(FrameError::PaddingTooLong);
            }
            body = &body[1..body.len() - pad];
        }
        let priority = if flags & PRIORITY != 0 {
            let p: [u8; 5] = body
                .get(..5)
                .and_then(|b| b.try_into().ok())
                .ok_or(FrameError::PriorityCut)?;
            body = &body[5..];
            Some(p)
        } else {
            None
        };
        self.pending = Some(Pending {
            stream,
            end_stream: flags & END_STREAM != 0,
            priority,
            block: body.to_vec(),
            frames: whole.to_vec(),
        });
        if flags & END_HEADERS != 0 {
            self.finish(out)?;
        }
        Ok(())
    }

    /// Decodes the collected block and writes it again as HEADERS (and CONTINUATION) frames.
    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), FrameError> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        // (Not rewriting yet: this is the connection's first block.)
        if !self.rewriting && remembered_valid(&p.block) {
            out.extend_from_slice(&p.frames);
            self.passthrough = true;
            return Ok(());
        }
        let fields = self
            .decoder
            .decode(&p.block)
            .map_err(FrameError::Undecodable)?;
        if !self.rewriting {
            let valid = fields
                .iter()
                .all(|(name, value)| name.as_slice() != b":authority" || valid_authority(value));
            if valid {
                remember_valid(&p.block);
                out.extend_from_slice(&p.frames);
                self.passthrough = true;
                return Ok(());
            }
            self.rewriting = true;
        }
        let mut block = Vec::with_capacity(p.block.len() + 32);
        for (name, value) in &fields {
            if name.as_slice() == b":authority" && !valid_authority(value) {
                literal(&mut block, name, b"localhost");
            } else {
                literal(&mut block, name, value);
            }
        }
        let mut first = Vec::with_capacity(MAX_FRAME);
        let mut flags = if p.end_stream { END_STREAM } else { 0 };
        if let Some(priority) = p.priority {
            flags |= PRIORITY;
            first.extend_from_slice(&priority);
        }
        let room = MAX_FRAME - first.len();
        let (head, mut rest) = block.split_at(block.len().min(room));
        first.extend_from_slice(head);
        if rest.is_empty() {
            frame(out, HEADERS, flags | END_HEADERS, p.stream, &first);
            return Ok(());
        }
        frame(out, HEADERS, flags, p.stream, &first);
        while !rest.is_empty() {
            let (chunk, tail) = rest.split_at(rest.len().min(MAX_FRAME));
            let end = if tail.is_empty() { END_HEADERS } else { 0 };
            frame(out, CONTINUATION, end, p.stream, chunk);
            rest = tail;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header block as a client might send it, with Huffman-free literals indexed into the
    /// dynamic table (so the second block can refer to them).
    fn client_block(fields: &[(&[u8], &[u8])], encoder: &mut fluke_hpack::Encoder<'_>) -> Vec<u8> {
        encoder.encode(fields.iter().copied())
    }

    fn decode_all(bytes: &[u8]) -> Vec<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut decoder = Decoder::new();
        let mut at = PREFACE.len();
        let mut out = Vec::new();
        let mut block = Vec::new();
        while at < bytes.len() {
            let len = u32::from_be_bytes([0, bytes[at], bytes[at + 1], bytes[at + 2]]) as usize;
            let (kind, flags) = (bytes[at + 3], bytes[at + 4]);
            let payload = &bytes[at + 9..at + 9 + len];
            if kind == HEADERS || kind == CONTINUATION {
                block.extend_from_slice(payload);
                if flags & END_HEADERS != 0 {
                    out.push(decoder.decode(&block).unwrap());
                    block.clear();
                }
            }
            at += 9 + len;
        }
        out
    }

    #[test]
    fn a_percent_encoded_socket_path_becomes_localhost_and_the_rest_is_kept() {
        let mut encoder = fluke_hpack::Encoder::new();
        let mut stream = PREFACE.to_vec();
        let path_authority = b"tmp%2Frt%2Fe47f.sock".as_slice();
        let fields: Vec<(&[u8], &[u8])> = vec![
            (b":method", b"POST"),
            (b":scheme", b"http"),
            (b":path", b"/grpc.health.v1.Health/Check"),
            (b":authority", path_authority),
            (b"te", b"trailers"),
        ];
        let first = client_block(&fields, &mut encoder);
        frame(&mut stream, HEADERS, END_HEADERS, 1, &first);
        frame(&mut stream, 0x0, END_STREAM, 1, b"\0\0\0\0\0");
        // The second request refers to the dynamic table the first one filled.
        let second = client_block(&fields, &mut encoder);
        assert!(second.len() < first.len(), "the client indexed its fields");
        frame(&mut stream, HEADERS, END_HEADERS | END_STREAM, 3, &second);
        // Fed a few bytes at a time, as reads arrive.
        let mut fix = AuthorityFix::default();
        let mut out = Vec::new();
        for chunk in stream.chunks(7) {
            out.extend(fix.feed(chunk).unwrap());
        }
        let blocks = decode_all(&out);
        assert_eq!(blocks.len(), 2);
        for block in &blocks {
            let authority = block.iter().find(|(n, _)| n == b":authority").unwrap();
            assert_eq!(authority.1, b"localhost");
            assert!(
                block
                    .iter()
                    .any(|(n, v)| n == b":path" && v == b"/grpc.health.v1.Health/Check")
            );
        }
        // The DATA frame came through unchanged.
        let data = [0, 0, 5, 0x0, END_STREAM, 0, 0, 0, 1, 0, 0, 0, 0, 0];
        assert!(out.windows(data.len()).any(|w| w == data));
    }

    /// A first block with a valid authority is remembered by its bytes, and the next
    /// connection that opens with the same bytes is handed over untouched without decoding; a
    /// block whose authority is rewritten is never remembered.
    #[test]
    fn a_valid_first_block_is_decoded_once_for_every_connection_that_sends_it() {
        let block = |authority: &[u8]| {
            let fields: Vec<(&[u8], &[u8])> = vec![
                (b":method", b"POST"),
                (b":scheme", b"http"),
                (b":path", b"/stanley.v1.Stanley/Prompt"),
                (b":authority", authority),
            ];
            client_block(&fields, &mut fluke_hpack::Encoder::new())
        };
        let connection = |first: &[u8]| {
            let mut stream = PREFACE.to_vec();
            frame(&mut stream, HEADERS, END_HEADERS, 1, first);
            let out = AuthorityFix::default().feed(&stream).unwrap();
            (stream, out)
        };
        let valid = block(b"stanleyd.invalid");
        assert!(!remembered_valid(&valid));
        for _ in 0..2 {
            let (stream, out) = connection(&valid);
            assert_eq!(out, stream, "handed over untouched");
            assert!(remembered_valid(&valid));
        }
        let invalid = block(b"tmp%2Fd.sock");
        let (stream, out) = connection(&invalid);
        assert_ne!(out, stream, "rewritten");
        assert!(!remembered_valid(&invalid));
    }

    #[test]
    fn a_frame_larger_than_the_server_accepts_is_never_buffered() {
        let mut fix = AuthorityFix::default();
        let mut stream = PREFACE.to_vec();
        // A DATA frame header claiming 1 MiB, and its first bytes.
        stream.extend_from_slice(&[0x10, 0x00, 0x00, 0x0, 0x0, 0, 0, 0, 1]);
        stream.extend_from_slice(&[7u8; 100]);
        let out = fix.feed(&stream).unwrap();
        assert_eq!(out, stream, "passed through at once");
        assert_eq!(fix.feed(b"more").unwrap(), b"more");
        assert!(fix.raw.is_empty());
    }

    /// Each malformed header frame is refused with the variant naming its fault, and the words
    /// the closed connection reports.
    #[test]
    fn a_malformed_header_frame_is_refused_with_its_fault() {
        let refused = |kind: u8, flags: u8, payload: &[u8]| {
            let mut stream = PREFACE.to_vec();
            frame(&mut stream, kind, flags, 1, payload);
            AuthorityFix::default().feed(&stream).unwrap_err()
        };
        let padded = refused(HEADERS, PADDED | END_HEADERS, b"");
        assert_eq!(padded, FrameError::EmptyPadded);
        assert_eq!(padded.to_string(), "empty padded HEADERS frame");
        assert_eq!(
            refused(HEADERS, PADDED | END_HEADERS, &[9, 1, 2]),
            FrameError::PaddingTooLong
        );
        assert_eq!(
            refused(HEADERS, PRIORITY | END_HEADERS, &[0, 0]),
            FrameError::PriorityCut
        );
        // An index far past both tables.
        let undecodable = refused(HEADERS, END_HEADERS, &[0xff, 0x80, 0x01]);
        assert!(
            matches!(undecodable, FrameError::Undecodable(_)),
            "{undecodable:?}"
        );
        assert!(
            undecodable
                .to_string()
                .starts_with("undecodable header block: ")
        );
        // A block that never ends grows past the bound.
        let mut stream = PREFACE.to_vec();
        frame(&mut stream, HEADERS, 0, 1, &[0x82]);
        let mut fix = AuthorityFix::default();
        fix.feed(&stream).unwrap();
        let chunk = vec![0x82; MAX_FRAME];
        let mut outcome = Ok(Vec::new());
        for _ in 0..=MAX_BLOCK / MAX_FRAME {
            let mut more = Vec::new();
            frame(&mut more, CONTINUATION, 0, 1, &chunk);
            outcome = fix.feed(&more);
            if outcome.is_err() {
                break;
            }
        }
        let too_large = outcome.unwrap_err();
        assert_eq!(too_large, FrameError::BlockTooLarge);
        assert_eq!(too_large.to_string(), "a header block over 1048576 bytes");
    }

    #[test]
    fn valid_authorities_are_kept_and_large_blocks_are_split() {
        assert!(valid_authority(b"localhost"));
        assert!(valid_authority(b"127.0.0.1:50051"));
        assert!(!valid_authority(b"/tmp/rt/d.sock"));
        assert!(!valid_authority(b"tmp%2Fd.sock"));
        let mut encoder = fluke_hpack::Encoder::new();
        let big = vec![b'x'; 40_000];
        let fields: Vec<(&[u8], &[u8])> =
            vec![(b":authority", b"localhost"), (b"x-big", big.as_slice())];
        let block = client_block(&fields, &mut encoder);
        let mut stream = PREFACE.to_vec();
        // The client's own block, split over CONTINUATION frames of at most 16 KiB.
        let (a, rest) = block.split_at(10_000);
        let (b, c) = rest.split_at(16_000);
        frame(&mut stream, HEADERS, 0, 1, a);
        frame(&mut stream, CONTINUATION, 0, 1, b);
        frame(&mut stream, CONTINUATION, END_HEADERS, 1, c);
        let out = AuthorityFix::default().feed(&stream).unwrap();
        let blocks = decode_all(&out);
        assert_eq!(
            blocks[0][0],
            (b":authority".to_vec(), b"localhost".to_vec())
        );
        assert_eq!(blocks[0][1].1.len(), 40_000);
    }

    /// A client whose first block carries a valid authority is handed over byte for byte,
    /// whatever follows (its blocks index its own dynamic table, which the server then keeps);
    /// one whose first block does not has every block rewritten, the valid ones too.
    #[test]
    fn the_first_block_decides_whether_a_connection_is_rewritten() {
        let mut encoder = fluke_hpack::Encoder::new();
        let valid: Vec<(&[u8], &[u8])> = vec![(b":authority", b"localhost"), (b"x-a", b"1")];
        let mut stream = PREFACE.to_vec();
        frame(
            &mut stream,
            HEADERS,
            END_HEADERS,
            1,
            &client_block(&valid, &mut encoder),
        );
        frame(&mut stream, 0x0, END_STREAM, 1, b"body");
        frame(
            &mut stream,
            HEADERS,
            END_HEADERS,
            3,
            &client_block(&valid, &mut encoder),
        );
        let mut fix = AuthorityFix::default();
        // Fed in pieces, as a socket delivers it.
        let (a, b) = stream.split_at(PREFACE.len() + 20);
        let mut out = fix.feed(a).unwrap();
        out.extend(fix.feed(b).unwrap());
        assert_eq!(out, stream, "handed over untouched");

        let mut encoder = fluke_hpack::Encoder::new();
        let path: Vec<(&[u8], &[u8])> = vec![(b":authority", b"tmp%2Fd.sock")];
        let mut stream = PREFACE.to_vec();
        frame(
            &mut stream,
            HEADERS,
            END_HEADERS,
            1,
            &client_block(&path, &mut encoder),
        );
        frame(
            &mut stream,
            HEADERS,
            END_HEADERS,
            3,
            &client_block(&valid, &mut encoder),
        );
        let out = AuthorityFix::default().feed(&stream).unwrap();
        assert_ne!(out, stream);
        let blocks = decode_all(&out);
        assert_eq!(blocks[0][0].1, b"localhost");
        assert_eq!(blocks[1][0].1, b"localhost");
        assert_eq!(blocks[1][1], (b"x-a".to_vec(), b"1".to_vec()));
    }
}
