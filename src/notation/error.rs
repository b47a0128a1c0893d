//! The one error type of every text format: it names the offending line or
//! token and says what was expected, so that users can fix their input.
//!
//! Inputs come from outside (files, pipes, other programs), so an error never
//! quotes them whole or raw: [`excerpt`] bounds the quote and escapes control
//! characters, so that a megabyte token gives a short message and an escape
//! sequence in a record cannot drive the user's terminal.

use std::fmt;

/// The most characters of an input that an error message quotes.
pub const EXCERPT_CHARS: usize = 80;

/// A bounded, escaped excerpt of untrusted `text`, for error messages.
/// Control characters (C0, DEL, C1), line and paragraph separators and
/// bidirectional overrides are escaped as Rust writes them (`\t`,
/// `\u{1b}`); the excerpt holds at most [`EXCERPT_CHARS`] characters after
/// escaping, followed by `...` and the full length in bytes when the text
/// is longer. Plain short text comes back unchanged. The work is bounded by
/// the excerpt, not by the text.
///
/// ```
/// use supernova::notation::error::excerpt;
///
/// assert_eq!(excerpt("Bulid"), "Bulid");
/// assert_eq!(excerpt("\u{1b}]0;title\u{7}"), "\\u{1b}]0;title\\u{7}");
/// let long = "x".repeat(1 << 20);
/// assert_eq!(excerpt(&long), format!("{}... (1048576 bytes)", "x".repeat(80)));
/// ```
pub fn excerpt(text: &str) -> String {
    quote(text, text.len(), false)
}

/// [`excerpt`] for bytes that need not be UTF-8 (bytes that are not become
/// U+FFFD): the length it gives is of the bytes themselves, and only as
/// many bytes are decoded as the excerpt can show.
///
/// ```
/// use supernova::notation::error::excerpt_bytes;
///
/// assert_eq!(excerpt_bytes(b"G1 \xff"), "G1 \u{fffd}");
/// let invalid = vec![0xff; 400_000];
/// assert!(excerpt_bytes(&invalid).ends_with("... (400000 bytes)"));
/// ```
pub fn excerpt_bytes(bytes: &[u8]) -> String {
    // Each character shown takes at most four bytes: one more character
    // than the excerpt holds is enough to know it is cut.
    let shown = bytes.len().min(4 * (EXCERPT_CHARS + 1));
    quote(
        &String::from_utf8_lossy(&bytes[..shown]),
        bytes.len(),
        shown < bytes.len(),
    )
}

/// The excerpt of `text`, the start of an input of `length` bytes (all of
/// it unless `cut`).
fn quote(text: &str, length: usize, cut: bool) -> String {
    let mut quoted = String::new();
    let mut room = EXCERPT_CHARS;
    for character in text.chars() {
        let escaped = needs_escape(character).then(|| character.escape_debug().to_string());
        let width = escaped.as_ref().map_or(1, |escaped| escaped.len());
        if width > room {
            quoted.push_str(&format!("... ({length} bytes)"));
            return quoted;
        }
        room -= width;
        match escaped {
            Some(escaped) => quoted.push_str(&escaped),
            None => quoted.push(character),
        }
    }
    if cut {
        quoted.push_str(&format!("... ({length} bytes)"));
    }
    quoted
}

/// Characters that change what a terminal shows beyond themselves.
fn needs_escape(character: char) -> bool {
    character.is_control()
        || matches!(
            character,
            '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// A parse error in any of the text formats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number, when the input has lines.
    pub line: Option<usize>,
    /// The offending token or line, as an [`excerpt`]: as written when it is
    /// short and plain, otherwise bounded and escaped.
    pub token: String,
    /// What was expected instead, or what is wrong with it.
    pub expected: String,
}

impl ParseError {
    /// An error about `token` (quoted as an [`excerpt`]), expecting `expected`.
    pub fn new(token: impl AsRef<str>, expected: impl Into<String>) -> ParseError {
        ParseError {
            line: None,
            token: excerpt(token.as_ref()),
            expected: expected.into(),
        }
    }

    /// An error about `bytes`, which need not be UTF-8 (quoted as an
    /// [`excerpt_bytes`]), expecting `expected`.
    pub fn about_bytes(bytes: &[u8], expected: impl Into<String>) -> ParseError {
        ParseError {
            line: None,
            token: excerpt_bytes(bytes),
            expected: expected.into(),
        }
    }

    /// The same error, located on a line.
    pub fn at_line(mut self, line: usize) -> ParseError {
        self.line.get_or_insert(line);
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(formatter, "line {line}: ")?;
        }
        write!(formatter, "'{}': {}", self.token, self.expected)
    }
}

impl std::error::Error for ParseError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_bounded_and_escaped() {
        assert_eq!(excerpt(""), "");
        assert_eq!(excerpt("G1!"), "G1!");
        assert_eq!(excerpt("é"), "é");
        assert_eq!(excerpt("a\tb\nc\r"), "a\\tb\\nc\\r");
        assert_eq!(excerpt("\u{202e}evil"), "\\u{202e}evil");
        let exact = "y".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(&exact), exact);
        let wide = "é".repeat(EXCERPT_CHARS + 1);
        assert_eq!(
            excerpt(&wide),
            format!("{}... ({} bytes)", "é".repeat(EXCERPT_CHARS), wide.len())
        );
        let error = ParseError::new("\u{1b}[2J".repeat(100_000), "expected a piece");
        assert!(error.token.len() < EXCERPT_CHARS + 20, "{error}");
        assert!(!error.to_string().contains('\u{1b}'));
    }
}
