//! Reading protocol lines with a length cap, for both sides: the engine
//! reading its controller and the controller reading an engine. A runaway
//! line (a bug, or an endless stream with no newline) must not grow memory
//! without end, so no line is kept past [`MAX_LINE_BYTES`].

use std::io::{BufRead, Read};

/// Lines longer than this are refused unread, in both directions: no
/// command or reply needs more than a few kilobytes (a `position` line of a
/// long game is the largest), and a runaway line must not grow memory
/// without end.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// What one read gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A whole line, without its `\n` or `\r\n`; invalid UTF-8 is replaced.
    Line(String),
    /// A line longer than [`MAX_LINE_BYTES`]: its first bytes were read and
    /// dropped, and the reader stands inside it (see [`skip_line`]).
    TooLong,
    /// End of input, or a read error.
    End,
}

/// Reads one line of at most [`MAX_LINE_BYTES`] bytes into `buffer`
/// (cleared first) and returns it. A final line without `\n` counts.
pub fn read_line(reader: &mut impl BufRead, buffer: &mut Vec<u8>) -> LineRead {
    buffer.clear();
    match Read::take(&mut *reader, MAX_LINE_BYTES as u64 + 1).read_until(b'\n', buffer) {
        Ok(0) | Err(_) => return LineRead::End,
        Ok(_) => {}
    }
    if buffer.last() == Some(&b'\n') {
        buffer.pop();
    } else if buffer.len() > MAX_LINE_BYTES {
        buffer.clear();
        return LineRead::TooLong;
    }
    if buffer.last() == Some(&b'\r') {
        buffer.pop();
    }
    let line = String::from_utf8_lossy(buffer).into_owned();
    LineRead::Line(line)
}

/// Skips the rest of a line, through its `\n`, keeping none of it; false at
/// end of input. The work is the line's length, the memory the reader's
/// buffer.
pub fn skip_line(reader: &mut impl BufRead) -> bool {
    loop {
        let (done, used) = match reader.fill_buf() {
            Ok([]) | Err(_) => return false,
            Ok(bytes) => match bytes.iter().position(|&byte| byte == b'\n') {
                Some(at) => (true, at + 1),
                None => (false, bytes.len()),
            },
        };
        reader.consume(used);
        if done {
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    /// An endless stream of one byte, with no newline.
    struct Endless;

    impl Read for Endless {
        fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
            buffer.fill(b'x');
            Ok(buffer.len())
        }
    }

    #[test]
    fn lines_are_read_whole_and_capped() {
        let mut input = BufReader::new(&b"hwi\r\nisready\n\nlast"[..]);
        let mut buffer = Vec::new();
        let mut read = || read_line(&mut input, &mut buffer);
        assert_eq!(read(), LineRead::Line("hwi".into()));
        assert_eq!(read(), LineRead::Line("isready".into()));
        assert_eq!(read(), LineRead::Line(String::new()));
        assert_eq!(read(), LineRead::Line("last".into()));
        assert_eq!(read(), LineRead::End);

        let mut long = vec![b'p'; MAX_LINE_BYTES];
        long.extend_from_slice(b"\nsecond\n");
        long.extend(vec![b'q'; MAX_LINE_BYTES + 1]);
        long.extend_from_slice(b"\nthird\n");
        let mut input = BufReader::new(&long[..]);
        let line = read_line(&mut input, &mut buffer);
        assert_eq!(line, LineRead::Line("p".repeat(MAX_LINE_BYTES)));
        assert_eq!(
            read_line(&mut input, &mut buffer),
            LineRead::Line("second".into())
        );
        assert_eq!(read_line(&mut input, &mut buffer), LineRead::TooLong);
        assert!(buffer.capacity() <= 2 * MAX_LINE_BYTES + 64);
        assert!(skip_line(&mut input));
        assert_eq!(
            read_line(&mut input, &mut buffer),
            LineRead::Line("third".into())
        );
    }

    #[test]
    fn an_endless_line_is_refused_in_bounded_memory() {
        let mut input = BufReader::new(Endless);
        let mut buffer = Vec::new();
        assert_eq!(read_line(&mut input, &mut buffer), LineRead::TooLong);
        assert!(buffer.capacity() <= 2 * MAX_LINE_BYTES + 64);
        // Skipping reads on for as long as the line goes; a few megabytes
        // of an endless one here, through a reader that ends.
        let mut input = BufReader::new(Endless.take(8 << 20));
        assert!(!skip_line(&mut input));
    }
}
