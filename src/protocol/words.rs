//! The word level that both directions of the protocol share: a line is
//! split into words at spaces and tabs only, keyword parameters are given at
//! most once, and every error quotes a bounded, escaped excerpt.
//!
//! The engine reads commands ([`super::command`]) and the controller reads
//! replies ([`super::reply`]) with these same rules, so the two sides cannot
//! disagree about what a word is.

use std::fmt;
use std::str::FromStr;

use crate::notation::error::excerpt;

/// The characters that separate words (protocol.md §1).
pub const SEPARATORS: [char; 2] = [' ', '\t'];

/// Why a protocol line (a command or a reply) is not valid: the offending
/// word and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// The offending word (or the whole line), as an [`excerpt`]: as
    /// written when it is short and plain, otherwise bounded and escaped.
    pub token: String,
    /// What was expected.
    pub expected: String,
}

impl LineError {
    /// An error about `token` (quoted as an [`excerpt`]), expecting `expected`.
    pub fn new(token: impl AsRef<str>, expected: impl Into<String>) -> LineError {
        LineError {
            token: excerpt(token.as_ref()),
            expected: expected.into(),
        }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "'{}': {}", self.token, self.expected)
    }
}

impl std::error::Error for LineError {}

/// The words of a line: the runs between spaces and tabs.
///
/// # Errors
/// A word that holds other white space (U+00A0, U+3000, a vertical tab, a
/// carriage return inside the line...): it is not a separator, and a word
/// that looks like two would only confuse.
///
/// ```
/// use supernova::protocol::words::split;
///
/// assert_eq!(split(" go\tnodes  5 ").unwrap(), ["go", "nodes", "5"]);
/// assert!(split("go nodes\u{a0}5").is_err());
/// ```
pub fn split(line: &str) -> Result<Vec<&str>, LineError> {
    let words: Vec<&str> = line
        .split(SEPARATORS)
        .filter(|word| !word.is_empty())
        .collect();
    for word in &words {
        if let Some(space) = word.chars().find(|character| character.is_whitespace()) {
            return Err(LineError::new(
                word,
                format!(
                    "expected words separated by spaces or tabs: U+{:04X} is white space but not a separator",
                    space as u32
                ),
            ));
        }
    }
    Ok(words)
}

/// Keyword parameters read in order (`go nodes 5 movetime 100`, `info depth
/// 3 nodes 40`), each keyword at most once: a repeated one is an error, not
/// a silent "last one wins".
pub(crate) struct Parameters<'a> {
    words: std::slice::Iter<'a, &'a str>,
    seen: Vec<&'a str>,
}

impl<'a> Parameters<'a> {
    /// Parameters from `words`.
    pub(crate) fn new(words: &'a [&'a str]) -> Parameters<'a> {
        Parameters {
            words: words.iter(),
            seen: Vec::new(),
        }
    }

    /// The next keyword, or `None` at the end.
    ///
    /// # Errors
    /// A keyword given before.
    pub(crate) fn keyword(&mut self) -> Result<Option<&'a str>, LineError> {
        let Some(&word) = self.words.next() else {
            return Ok(None);
        };
        if self.seen.contains(&word) {
            return Err(LineError::new(
                word,
                "given twice: expected each parameter at most once",
            ));
        }
        self.seen.push(word);
        Ok(Some(word))
    }

    /// The word after `keyword`.
    ///
    /// # Errors
    /// There is none.
    pub(crate) fn value(&mut self, keyword: &str, what: &str) -> Result<&'a str, LineError> {
        self.words
            .next()
            .copied()
            .ok_or_else(|| LineError::new(keyword, format!("expected {what} after '{keyword}'")))
    }

    /// The number after `keyword`.
    ///
    /// # Errors
    /// There is none, or it does not parse as `T`.
    pub(crate) fn number<T: FromStr>(&mut self, keyword: &str, what: &str) -> Result<T, LineError> {
        let text = self.value(keyword, what)?;
        text.parse()
            .map_err(|_| LineError::new(text, format!("expected {what} after '{keyword}'")))
    }

    /// Every word left.
    pub(crate) fn rest(&mut self) -> Vec<&'a str> {
        self.words.by_ref().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_split_at_spaces_and_tabs_only() {
        assert_eq!(split("").unwrap(), Vec::<&str>::new());
        assert_eq!(split(" \t ").unwrap(), Vec::<&str>::new());
        assert_eq!(split("a\t\tb c").unwrap(), ["a", "b", "c"]);
        for other in ['\u{a0}', '\u{3000}', '\u{b}', '\u{c}', '\r', '\u{2028}'] {
            let line = format!("go{other}nodes 5");
            let error = split(&line).unwrap_err();
            assert!(error.expected.contains("not a separator"), "{error}");
            assert!(
                error.expected.contains(&format!("U+{:04X}", other as u32)),
                "{error}"
            );
            assert!(!error.to_string().chars().any(char::is_control), "{error}");
        }
    }

    #[test]
    fn parameters_come_once() {
        let words = ["nodes", "5", "movetime", "x", "nodes", "6"];
        let mut parameters = Parameters::new(&words);
        assert_eq!(parameters.keyword().unwrap(), Some("nodes"));
        assert_eq!(parameters.number::<u64>("nodes", "a number").unwrap(), 5);
        assert_eq!(parameters.keyword().unwrap(), Some("movetime"));
        let error = parameters
            .number::<u64>("movetime", "a number")
            .unwrap_err();
        assert_eq!(error.token, "x");
        let error = parameters.keyword().unwrap_err();
        assert_eq!(error.token, "nodes");
        assert!(error.expected.contains("given twice"), "{error}");
    }
}
