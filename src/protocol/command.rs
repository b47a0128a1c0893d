//! The controller's commands as one type, [`Command`], in both directions:
//! [`parse`] reads a line into one, with no side effects, and its `Display`
//! writes one, so the controller's side ([`super::client`], the match
//! runner) builds its lines from the same type the engine reads
//! (`parse(&command.to_string()) == Ok(command)`).
//!
//! Parsing is separate from acting so that a bad line is rejected whole
//! before anything changes: the session only acts on a fully parsed command,
//! which is how "an error leaves the state unchanged" is kept. Every error
//! names the offending word and what was expected there (protocol.md).

use std::fmt;
use std::time::Duration;

use super::words::{self, LineError, Parameters};
use crate::engine::{Clock, SearchLimits};
use crate::notation::{hwpn, Board};

/// How many turns `turns` lists unless told otherwise: enough to read, and a
/// bounded answer even in positions with hundreds of thousands of turns.
pub const DEFAULT_TURN_LISTING: usize = 1000;

/// One command from the controller (GUI, tournament runner, person).
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// An empty line: nothing to do.
    Empty,
    /// `hwi`: identify, list the options, answer `hwiok`.
    Hwi,
    /// `isready`: answer `readyok` (at once, even while searching).
    IsReady,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The option's name (may contain spaces).
        name: String,
        /// The value (empty when none was given).
        value: String,
    },
    /// `newgame`: the start position and a fresh search tree.
    NewGame,
    /// `position startpos|pos <hwpn> [moves <turn> ...]`.
    Position {
        /// The board the turns start from.
        base: Box<Board>,
        /// The turns, as tokens.
        turns: Vec<String>,
    },
    /// `go [...]`: search and answer `bestmove`.
    Go(SearchLimits),
    /// `stop`: end the running search (it answers `bestmove`).
    Stop,
    /// `ponderhit`: the reply a `go ponder` search expected was played; the
    /// search goes on as the normal one, under the limits of its `go`.
    PonderHit,
    /// `quit`: stop any search and exit.
    Quit,
    /// `d`: show the board.
    Display,
    /// `turns [all|N]`: list the distinct legal turns.
    Turns {
        /// The most turns to list.
        limit: usize,
    },
    /// `eval`: the static evaluation.
    Eval,
    /// `count`: the number of distinct legal turns.
    Count,
}

/// Why a line is not a valid command: the word level's error, which quotes
/// a bounded, escaped excerpt of the offending word.
pub type CommandError = LineError;

/// Every command word, for the "unknown command" message.
const COMMANDS: &str =
    "hwi, isready, setoption, newgame, position, go, stop, ponderhit, quit, d, turns, eval, count";

/// Parses one line.
///
/// # Errors
/// An unknown command, a missing or extra argument, or a bad value; the
/// error names the word and what was expected.
pub fn parse(line: &str) -> Result<Command, CommandError> {
    let words = words::split(line)?;
    let Some((&first, rest)) = words.split_first() else {
        return Ok(Command::Empty);
    };
    let no_arguments = |command: Command| {
        if let Some(extra) = rest.first() {
            Err(CommandError::new(
                *extra,
                format!("expected nothing after '{first}'"),
            ))
        } else {
            Ok(command)
        }
    };
    match first {
        "hwi" => no_arguments(Command::Hwi),
        "isready" => no_arguments(Command::IsReady),
        "newgame" => no_arguments(Command::NewGame),
        "stop" => no_arguments(Command::Stop),
        "ponderhit" => no_arguments(Command::PonderHit),
        "quit" => no_arguments(Command::Quit),
        "d" => no_arguments(Command::Display),
        "eval" => no_arguments(Command::Eval),
        "count" => no_arguments(Command::Count),
        "turns" => parse_turns(rest),
        "setoption" => parse_setoption(rest),
        "position" => parse_position(rest),
        "go" => parse_go(rest).map(Command::Go),
        _ => Err(CommandError::new(
            first,
            format!("unknown command: expected one of {COMMANDS}"),
        )),
    }
}

fn parse_turns(rest: &[&str]) -> Result<Command, CommandError> {
    match rest {
        [] => Ok(Command::Turns {
            limit: DEFAULT_TURN_LISTING,
        }),
        ["all"] => Ok(Command::Turns { limit: usize::MAX }),
        [number] => number
            .parse::<usize>()
            .map(|limit| Command::Turns { limit })
            .map_err(|_| CommandError::new(*number, "expected 'all' or a whole number of turns")),
        [_, extra, ..] => Err(CommandError::new(
            *extra,
            "expected at most one argument: turns [all|N]",
        )),
    }
}

fn parse_setoption(rest: &[&str]) -> Result<Command, CommandError> {
    let Some((&keyword, rest)) = rest.split_first() else {
        return Err(CommandError::new(
            "setoption",
            "expected: setoption name <name> value <value>",
        ));
    };
    if keyword != "name" {
        return Err(CommandError::new(
            keyword,
            "expected 'name' after setoption",
        ));
    }
    let value_at = rest.iter().position(|word| *word == "value");
    let (name_words, value_words) = match value_at {
        Some(index) => (&rest[..index], &rest[index + 1..]),
        None => (rest, &[][..]),
    };
    if name_words.is_empty() {
        return Err(CommandError::new(
            "name",
            "expected an option name after 'name'",
        ));
    }
    if value_at.is_some() && value_words.is_empty() {
        return Err(CommandError::new("value", "expected a value after 'value'"));
    }
    Ok(Command::SetOption {
        name: name_words.join(" "),
        value: value_words.join(" "),
    })
}

fn parse_position(rest: &[&str]) -> Result<Command, CommandError> {
    let Some((&kind, rest)) = rest.split_first() else {
        return Err(CommandError::new(
            "position",
            "expected: position startpos|pos <hwpn> [moves <turn> ...]",
        ));
    };
    let moves_at = rest.iter().position(|word| *word == "moves");
    let (base_words, turn_words) = match moves_at {
        Some(index) => (&rest[..index], &rest[index + 1..]),
        None => (rest, &[][..]),
    };
    let base = match kind {
        "startpos" => {
            if let Some(extra) = base_words.first() {
                return Err(CommandError::new(
                    *extra,
                    "expected 'moves' or nothing after 'startpos'",
                ));
            }
            Board::default()
        }
        "pos" => {
            if base_words.is_empty() {
                return Err(CommandError::new(
                    "pos",
                    "expected an HWPN position after 'pos', such as r1b3:g3:/y2b1::g3 0",
                ));
            }
            let text = base_words.join(" ");
            // The notation's error quotes an excerpt already.
            hwpn::parse(&text).map_err(|error| CommandError {
                token: error.token,
                expected: format!("bad position: {}", error.expected),
            })?
        }
        _ => {
            return Err(CommandError::new(
                kind,
                "expected 'startpos' or 'pos <hwpn>' after 'position'",
            ))
        }
    };
    Ok(Command::Position {
        base: Box::new(base),
        turns: turn_words.iter().map(|word| word.to_string()).collect(),
    })
}

/// The `go` parameters that take a number of milliseconds or nodes.
const GO_NUMBERS: [&str; 7] = [
    "movetime",
    "nodes",
    "p0time",
    "p1time",
    "p0inc",
    "p1inc",
    "movestogo",
];

/// The longest time `go` takes: a century, so that `Duration` arithmetic
/// cannot overflow.
const MAX_GO_MILLIS: u64 = 100 * 365 * 24 * 3600 * 1000;

fn parse_go(rest: &[&str]) -> Result<SearchLimits, CommandError> {
    let mut limits = SearchLimits::default();
    let mut times: [Option<u64>; 2] = [None, None];
    let mut increments: [Option<u64>; 2] = [None, None];
    let mut parameters = Parameters::new(rest);
    while let Some(word) = parameters.keyword()? {
        if word == "infinite" {
            limits.infinite = true;
            continue;
        }
        if word == "ponder" {
            limits.ponder = true;
            continue;
        }
        if !GO_NUMBERS.contains(&word) {
            let expected = match word {
                "depth" | "mate" | "searchmoves" | "wtime" | "btime" | "winc" | "binc" => "a UCI go parameter this engine does not support: expected movetime, nodes, infinite, ponder, p0time, p1time, p0inc, p1inc or movestogo",
                _ => "expected a go parameter: movetime, nodes, infinite, ponder, p0time, p1time, p0inc, p1inc or movestogo",
            };
            return Err(CommandError::new(word, expected));
        }
        let value: u64 = parameters.number(word, "a whole number (milliseconds or nodes)")?;
        let millis = value.min(MAX_GO_MILLIS);
        match word {
            "movetime" => limits.movetime = Some(Duration::from_millis(millis)),
            "nodes" => limits.nodes = Some(value),
            "p0time" => times[0] = Some(millis),
            "p1time" => times[1] = Some(millis),
            "p0inc" => increments[0] = Some(millis),
            "p1inc" => increments[1] = Some(millis),
            _ => {} // movestogo: accepted and ignored.
        }
    }
    if times.iter().any(Option::is_some) {
        let millis = |value: Option<u64>| Duration::from_millis(value.unwrap_or(0));
        limits.clock = Some(Clock {
            time_left: [millis(times[0]), millis(times[1])],
            increment: [millis(increments[0]), millis(increments[1])],
        });
    } else if increments.iter().any(Option::is_some) {
        return Err(CommandError::new(
            if increments[0].is_some() {
                "p0inc"
            } else {
                "p1inc"
            },
            "expected p0time/p1time with an increment",
        ));
    }
    Ok(limits)
}

/// The HWPN of a `position pos` command: without names when the plain text
/// reads back to the same names (an opening as a file writes it), else with
/// every name.
fn position_text(board: &Board) -> String {
    let plain = hwpn::write(&board.position, None);
    match hwpn::parse(&plain) {
        Ok(read) if read == *board => plain,
        _ => hwpn::write_board(board),
    }
}

/// Writes the command as the controller sends it; [`parse`] reads it back
/// to the same command. Times are written in whole milliseconds.
impl fmt::Display for Command {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Empty => Ok(()),
            Command::Hwi => formatter.write_str("hwi"),
            Command::IsReady => formatter.write_str("isready"),
            Command::SetOption { name, value } if value.is_empty() => {
                write!(formatter, "setoption name {name}")
            }
            Command::SetOption { name, value } => {
                write!(formatter, "setoption name {name} value {value}")
            }
            Command::NewGame => formatter.write_str("newgame"),
            Command::Position { base, turns } => {
                if **base == Board::default() {
                    formatter.write_str("position startpos")?;
                } else {
                    write!(formatter, "position pos {}", position_text(base))?;
                }
                if !turns.is_empty() {
                    write!(formatter, " moves {}", turns.join(" "))?;
                }
                Ok(())
            }
            Command::Go(limits) => {
                formatter.write_str("go")?;
                if let Some(movetime) = limits.movetime {
                    write!(formatter, " movetime {}", movetime.as_millis())?;
                }
                if let Some(nodes) = limits.nodes {
                    write!(formatter, " nodes {nodes}")?;
                }
                if let Some(clock) = &limits.clock {
                    for (index, time) in clock.time_left.iter().enumerate() {
                        write!(formatter, " p{index}time {}", time.as_millis())?;
                    }
                    for (index, increment) in clock.increment.iter().enumerate() {
                        if !increment.is_zero() {
                            write!(formatter, " p{index}inc {}", increment.as_millis())?;
                        }
                    }
                }
                if limits.infinite {
                    formatter.write_str(" infinite")?;
                }
                if limits.ponder {
                    formatter.write_str(" ponder")?;
                }
                Ok(())
            }
            Command::Stop => formatter.write_str("stop"),
            Command::PonderHit => formatter.write_str("ponderhit"),
            Command::Quit => formatter.write_str("quit"),
            Command::Display => formatter.write_str("d"),
            Command::Turns { limit } if *limit == usize::MAX => formatter.write_str("turns all"),
            Command::Turns { limit } => write!(formatter, "turns {limit}"),
            Command::Eval => formatter.write_str("eval"),
            Command::Count => formatter.write_str("count"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_main_commands() {
        assert_eq!(parse("   ").unwrap(), Command::Empty);
        assert_eq!(parse("hwi").unwrap(), Command::Hwi);
        assert_eq!(
            parse("setoption name Move Overhead value 30").unwrap(),
            Command::SetOption {
                name: "Move Overhead".into(),
                value: "30".into()
            }
        );
        let Command::Position { base, turns } =
            parse("position pos r1b3:g3:/y2b1::g3 0 moves pass build.g1.Home0").unwrap()
        else {
            panic!("expected a position");
        };
        assert!(!base.position.in_setup());
        assert_eq!(turns, ["pass", "build.g1.Home0"]);
        let Command::Go(limits) = parse("go p0time 1000 p1time 2000 p1inc 10 movestogo 5").unwrap()
        else {
            panic!("expected go");
        };
        let clock = limits.clock.unwrap();
        assert_eq!(clock.time_left[1], Duration::from_millis(2000));
        assert_eq!(clock.increment[1], Duration::from_millis(10));
        assert_eq!(
            parse("turns all").unwrap(),
            Command::Turns { limit: usize::MAX }
        );
    }

    #[test]
    fn errors_name_the_word() {
        for (line, token) in [
            ("fly", "fly"),
            ("hwi now", "now"),
            ("go nodes", "nodes"),
            ("go nodes -5", "-5"),
            ("go depth 3", "depth"),
            ("go p0inc 5", "p0inc"),
            ("position", "position"),
            ("position startpos junk", "junk"),
            ("position pos", "pos"),
            ("position pos r1b3:g3:/y2b1::q3 0", "q3"),
            ("position fen x", "fen"),
            ("setoption Hash 5", "Hash"),
            ("setoption name", "name"),
            ("setoption name Hash value", "value"),
            ("turns many", "many"),
            ("go nodes 5 nodes 5", "nodes"),
            ("go infinite movetime 5 infinite", "infinite"),
            ("go ponder ponder", "ponder"),
            ("ponderhit now", "now"),
            ("go p0time 5 p1time 5 p0time 6", "p0time"),
            ("go\u{a0}nodes 5", "go\u{a0}nodes"),
            ("isready\u{3000}", "isready\u{3000}"),
            ("position startpos moves pass\u{b}", "pass\\u{b}"),
        ] {
            let error = parse(line).unwrap_err();
            assert_eq!(error.token, token, "{line}: {error}");
        }
    }

    #[test]
    fn errors_quote_bounded_escaped_excerpts() {
        let huge = format!("go nodes {}", "9".repeat(1 << 20));
        let error = parse(&huge).unwrap_err();
        assert!(error.to_string().len() < 300, "{error}");
        let error = parse("\u{1b}]0;title\u{7}").unwrap_err();
        assert!(!error.to_string().chars().any(char::is_control), "{error}");
    }

    #[test]
    fn written_commands_read_back() {
        let named = hwpn::parse("Sam=r1b3:g3:/Dave=y2b1::g3/Vega=b2:g1: 1").unwrap();
        let plain = hwpn::parse("r1b3:g3:/y2b1::g3 0").unwrap();
        let clock = Clock {
            time_left: [Duration::from_millis(60_000), Duration::from_millis(1)],
            increment: [Duration::from_millis(0), Duration::from_millis(100)],
        };
        let commands = [
            Command::Hwi,
            Command::IsReady,
            Command::SetOption {
                name: "Move Overhead".into(),
                value: "30".into(),
            },
            Command::SetOption {
                name: "Clear Hash".into(),
                value: String::new(),
            },
            Command::NewGame,
            Command::Position {
                base: Box::default(),
                turns: vec![],
            },
            Command::Position {
                base: Box::default(),
                turns: vec!["home.r1.b3.g3".into(), "home.y2.b1.g3".into()],
            },
            Command::Position {
                base: Box::new(named),
                turns: vec!["pass".into()],
            },
            Command::Position {
                base: Box::new(plain),
                turns: vec![],
            },
            Command::Go(SearchLimits::default()),
            Command::Go(SearchLimits::nodes(2000)),
            Command::Go(SearchLimits {
                movetime: Some(Duration::from_millis(250)),
                nodes: Some(7),
                clock: Some(clock),
                infinite: true,
                ponder: false,
            }),
            Command::Go(SearchLimits {
                clock: Some(clock),
                ponder: true,
                ..SearchLimits::default()
            }),
            Command::Stop,
            Command::PonderHit,
            Command::Quit,
            Command::Display,
            Command::Turns { limit: 5 },
            Command::Turns { limit: usize::MAX },
            Command::Eval,
            Command::Count,
        ];
        for command in commands {
            let line = command.to_string();
            assert_eq!(parse(&line).unwrap(), command, "{line}");
        }
        let plain_line = Command::Position {
            base: Box::new(hwpn::parse("r1b3:g3:/y2b1::g3 0").unwrap()),
            turns: vec![],
        }
        .to_string();
        assert_eq!(plain_line, "position pos r1b3:g3:/y2b1::g3 0");
    }
}
