//! The engine's errors, one type per operation that can fail, each saying
//! what was refused and leaving the engine as it was: a position that
//! cannot be set, an option that cannot be set, a search that cannot start.
//! They carry no protocol text; a front end that quotes their values to
//! people bounds and escapes them itself.

use std::fmt;

use crate::rules::PlayError;

/// Why a position could not be set. The engine's position is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The start position is in the middle of a turn.
    MidTurn,
    /// Turn number `index` (from 1) of the list cannot be played, or comes
    /// after the end of the game ([`PlayError::GameOver`]).
    Turn {
        /// 1-based index in the turn list.
        index: usize,
        /// Why it was rejected.
        error: PlayError,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::MidTurn => write!(formatter, "{}", crate::rules::MidTurn),
            PositionError::Turn {
                index,
                error: PlayError::GameOver(result),
            } => write!(
                formatter,
                "turn {index} comes after the end of the game ({} {})",
                result.score(),
                result.reason.word()
            ),
            PositionError::Turn { index, error } => {
                write!(formatter, "turn {index} cannot be played: {error}")
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// Why an option could not be set. The options are unchanged. The name and
/// value are quoted as given: a front end that shows them to people bounds
/// and escapes them (the protocol session does).
#[derive(Clone, Debug, PartialEq)]
pub enum OptionError {
    /// No option has this name.
    UnknownName(String),
    /// The value does not fit the option.
    BadValue {
        /// The option.
        name: String,
        /// The rejected value.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// Options cannot change while a search runs.
    Busy,
}

impl fmt::Display for OptionError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::UnknownName(name) => write!(
                formatter,
                "unknown option '{name}' (the hwi command lists them)"
            ),
            OptionError::BadValue {
                name,
                value,
                expected,
            } => write!(
                formatter,
                "option {name}: bad value '{value}': expected {expected}"
            ),
            OptionError::Busy => write!(
                formatter,
                "a search is running: send stop first, then change options"
            ),
        }
    }
}

impl std::error::Error for OptionError {}

/// Why a search could not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoError {
    /// A search is already running.
    Busy,
    /// The operating system refused a thread for the search.
    NoThread(String),
}

impl fmt::Display for GoError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GoError::Busy => write!(formatter, "a search is already running: send stop first"),
            GoError::NoThread(reason) => {
                write!(formatter, "cannot start a search thread: {reason}")
            }
        }
    }
}

impl std::error::Error for GoError {}
