//! The one error type of every text format: it names the offending line or
//! token and says what was expected, so that users can fix their input.

use std::fmt;

/// A parse error in any of the text formats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number, when the input has lines.
    pub line: Option<usize>,
    /// The offending token or line, as written.
    pub token: String,
    /// What was expected instead, or what is wrong with it.
    pub expected: String,
}

impl ParseError {
    /// An error about `token`, expecting `expected`.
    pub fn new(token: impl Into<String>, expected: impl Into<String>) -> ParseError {
        ParseError {
            line: None,
            token: token.into(),
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
