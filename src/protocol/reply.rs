//! The engine's replies as one type, [`Reply`], in both directions: the
//! session writes every `id`, `option`, `hwiok`, `readyok`, `info` and
//! `bestmove` line through its `Display`, and the controller's side
//! ([`super::client`], the match runner) reads them back with [`parse`]
//! (`parse(&reply.to_string()) == Ok(reply)`), with the same word rules as
//! the engine's command reader ([`super::words`]).
//!
//! The extensions' replies (`d`, `turns`, `eval`, `count`) are for people
//! and tests and are not part of this type.

use std::fmt;

use super::words::{self, LineError, Parameters};
use crate::engine::{OptionKind, OptionSpec};

/// One line from the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// `id name <name>` or `id author <author>`.
    Id {
        /// Which.
        field: IdField,
        /// The text (may contain spaces).
        value: String,
    },
    /// `option name <name> type <type> ...`: one option the engine has.
    Option(OptionLine),
    /// `hwiok`: the end of the `hwi` answer.
    HwiOk,
    /// `readyok`: the answer to `isready`.
    ReadyOk,
    /// `info depth ... pv ...`: the state of a search.
    Info(Info),
    /// `info string <text>`: free text (decisions, results, errors).
    InfoString(String),
    /// `bestmove <turn> [ponder <turn>]` (turn tokens), or `bestmove
    /// (none)`: the one answer to a `go`.
    BestMove {
        /// The turn to play; `None` for `(none)` (the game is over).
        turn: Option<String>,
        /// The reply the engine expects, written on the board after `turn`
        /// (with the `Ponder` option on, when it has one).
        ponder: Option<String>,
    },
}

impl Reply {
    /// The reply to a bad command: `info string error: <message>`.
    pub fn error(message: impl fmt::Display) -> Reply {
        Reply::InfoString(format!("error: {message}"))
    }

    /// `bestmove <turn>` with no expected reply (or `bestmove (none)`).
    pub fn best_move(turn: Option<String>) -> Reply {
        Reply::BestMove { turn, ponder: None }
    }
}

/// The fields of `id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdField {
    /// `id name`.
    Name,
    /// `id author`.
    Author,
}

/// An `option` line: a name and its type, default and range.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionLine {
    /// The name (may contain spaces).
    pub name: String,
    /// Its type, default and range: the engine's own [`OptionKind`], so
    /// that what the engine lists and what a controller reads are one type.
    pub kind: OptionKind,
}

impl From<&OptionSpec> for OptionLine {
    fn from(spec: &OptionSpec) -> OptionLine {
        OptionLine {
            name: spec.name.to_string(),
            kind: spec.kind.clone(),
        }
    }
}

/// The `score` of an `info` line, as UCI writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// `score cp <n>`: the value for the side to move, from -1 to 1, times
    /// 1000 (so that GUIs expecting centipawns show a sensible range).
    Centipawns(i64),
    /// `score mate <n>`: a proven result, UCI's mate score: the side to move
    /// wins with its `n`th turn from now (`n` > 0), or loses within `-n` of
    /// its own turns (`n` < 0; `mate -1`: whatever it plays now, the game
    /// is lost by the opponent's next turn at the latest).
    Mate(i64),
}

/// The fields of a search `info` line (protocol.md §5), each present or
/// not, written in this order; `pv` is always last.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Info {
    /// Mean depth of the iterations, in actions.
    pub depth: Option<u64>,
    /// Deepest iteration, in actions.
    pub seldepth: Option<u64>,
    /// Rank of this line's first turn (1 = best).
    pub multipv: Option<u64>,
    /// `score cp <value>` or `score mate <turns>`.
    pub score: Option<Score>,
    /// Win probability for the side to move, per mille.
    pub winprob: Option<u64>,
    /// `wdl W D L`: win, draw and loss chances for the side to move, per
    /// mille (with the `UCI_ShowWDL` option on).
    pub wdl: Option<[u64; 3]>,
    /// Iterations in this search.
    pub nodes: Option<u64>,
    /// Iterations per second.
    pub nps: Option<u64>,
    /// How full the tree is, per mille.
    pub hashfull: Option<u64>,
    /// Milliseconds since `go`.
    pub time: Option<u64>,
    /// The expected line, one turn token per turn.
    pub pv: Vec<String>,
}

impl fmt::Display for Info {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("info")?;
        let numbers = [
            ("depth", self.depth),
            ("seldepth", self.seldepth),
            ("multipv", self.multipv),
        ];
        for (key, value) in numbers {
            if let Some(value) = value {
                write!(formatter, " {key} {value}")?;
            }
        }
        match self.score {
            Some(Score::Centipawns(value)) => write!(formatter, " score cp {value}")?,
            Some(Score::Mate(turns)) => write!(formatter, " score mate {turns}")?,
            None => {}
        }
        if let Some(winprob) = self.winprob {
            write!(formatter, " winprob {winprob}")?;
        }
        if let Some([win, draw, loss]) = self.wdl {
            write!(formatter, " wdl {win} {draw} {loss}")?;
        }
        let numbers = [
            ("nodes", self.nodes),
            ("nps", self.nps),
            ("hashfull", self.hashfull),
            ("time", self.time),
        ];
        for (key, value) in numbers {
            if let Some(value) = value {
                write!(formatter, " {key} {value}")?;
            }
        }
        if !self.pv.is_empty() {
            write!(formatter, " pv {}", self.pv.join(" "))?;
        }
        Ok(())
    }
}

impl fmt::Display for OptionLine {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "option name {} type ", self.name)?;
        match &self.kind {
            OptionKind::Spin { default, min, max } => {
                write!(formatter, "spin default {default} min {min} max {max}")
            }
            OptionKind::Float { default, min, max } => {
                write!(formatter, "float default {default} min {min} max {max}")
            }
            OptionKind::Combo { default, values } => {
                write!(formatter, "combo default {default}")?;
                for value in values {
                    write!(formatter, " var {value}")?;
                }
                Ok(())
            }
            OptionKind::Text { default } => write!(formatter, "string default {default}"),
            OptionKind::Check { default } => write!(formatter, "check default {default}"),
        }
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Id { field, value } => {
                let field = match field {
                    IdField::Name => "name",
                    IdField::Author => "author",
                };
                write!(formatter, "id {field} {value}")
            }
            Reply::Option(option) => write!(formatter, "{option}"),
            Reply::HwiOk => formatter.write_str("hwiok"),
            Reply::ReadyOk => formatter.write_str("readyok"),
            Reply::Info(info) => write!(formatter, "{info}"),
            Reply::InfoString(text) => write!(formatter, "info string {text}"),
            Reply::BestMove { turn, ponder } => {
                match turn {
                    Some(turn) => write!(formatter, "bestmove {turn}")?,
                    None => formatter.write_str("bestmove (none)")?,
                }
                match ponder {
                    Some(ponder) => write!(formatter, " ponder {ponder}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// Why an engine's line is not a valid reply: the line's first word (an
/// excerpt) and the word-level error, so that a controller can tell a
/// malformed `bestmove` from chatter it may ignore.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplyError {
    /// The line's first word, as an excerpt (empty for a blank line).
    pub keyword: String,
    /// What is wrong.
    pub error: LineError,
}

impl fmt::Display for ReplyError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}", self.error)
    }
}

impl std::error::Error for ReplyError {}

/// Every reply word, for the "unknown reply" message.
const REPLIES: &str = "id, option, hwiok, readyok, info, bestmove";

/// Reads one line from the engine.
///
/// ```
/// use supernova::protocol::reply::{parse, Reply};
///
/// assert_eq!(parse("bestmove pass").unwrap(), Reply::best_move(Some("pass".into())));
/// assert_eq!(parse("bestmove (none)").unwrap(), Reply::best_move(None));
/// let Reply::Info(info) = parse("info depth 3 nodes 40 pv pass pass").unwrap() else {
///     panic!("expected an info line");
/// };
/// assert_eq!((info.depth, info.nodes, info.pv.len()), (Some(3), Some(40), 2));
/// assert!(parse("bestmove").is_err());
/// ```
///
/// # Errors
/// An unknown reply word, a missing, extra, repeated or bad field; the
/// error names the word and what was expected.
pub fn parse(line: &str) -> Result<Reply, ReplyError> {
    let words = match words::split(line) {
        Ok(words) => words,
        Err(error) => {
            let first = line.split(words::SEPARATORS).find(|word| !word.is_empty());
            return Err(ReplyError {
                keyword: crate::notation::error::excerpt(first.unwrap_or("")),
                error,
            });
        }
    };
    let first = words.first().copied().unwrap_or("");
    parse_words(&words).map_err(|error| ReplyError {
        keyword: crate::notation::error::excerpt(first),
        error,
    })
}

fn parse_words(words: &[&str]) -> Result<Reply, LineError> {
    let Some((&first, rest)) = words.split_first() else {
        return Err(LineError::new(
            "",
            format!("expected a reply: one of {REPLIES}"),
        ));
    };
    let alone = |reply: Reply| match rest.first() {
        Some(extra) => Err(LineError::new(
            extra,
            format!("expected nothing after '{first}'"),
        )),
        None => Ok(reply),
    };
    match first {
        "hwiok" => alone(Reply::HwiOk),
        "readyok" => alone(Reply::ReadyOk),
        "bestmove" => match rest {
            [] => Err(LineError::new(
                "bestmove",
                "expected a turn token or (none) after 'bestmove'",
            )),
            ["(none)"] => Ok(Reply::best_move(None)),
            [turn] => Ok(Reply::best_move(Some(turn.to_string()))),
            [turn, "ponder", ponder] if *turn != "(none)" => Ok(Reply::BestMove {
                turn: Some(turn.to_string()),
                ponder: Some(ponder.to_string()),
            }),
            [_, "ponder"] => Err(LineError::new(
                "ponder",
                "expected a turn token after 'ponder'",
            )),
            [_, extra, ..] => Err(LineError::new(
                extra,
                "expected nothing after the turn but 'ponder <turn>': bestmove <turn> [ponder <turn>]",
            )),
        },
        "id" => parse_id(rest),
        "option" => parse_option(rest).map(Reply::Option),
        "info" => parse_info(rest),
        _ => Err(LineError::new(
            first,
            format!("unknown reply: expected one of {REPLIES}"),
        )),
    }
}

fn parse_id(rest: &[&str]) -> Result<Reply, LineError> {
    let (field, value) = match rest.split_first() {
        Some((&"name", value)) => (IdField::Name, value),
        Some((&"author", value)) => (IdField::Author, value),
        Some((other, _)) => {
            return Err(LineError::new(
                other,
                "expected 'name' or 'author' after 'id'",
            ))
        }
        None => {
            return Err(LineError::new(
                "id",
                "expected 'name' or 'author' after 'id'",
            ))
        }
    };
    if value.is_empty() {
        return Err(LineError::new(
            rest[0],
            format!("expected text after 'id {}'", rest[0]),
        ));
    }
    Ok(Reply::Id {
        field,
        value: value.join(" "),
    })
}

/// The words between `keyword` and the next `end` (or the end), and the rest.
fn until<'a, 'b>(words: &'b [&'a str], end: &str) -> (&'b [&'a str], &'b [&'a str]) {
    let at = words
        .iter()
        .position(|word| *word == end)
        .unwrap_or(words.len());
    words.split_at(at)
}

fn parse_option(rest: &[&str]) -> Result<OptionLine, LineError> {
    let expected_form = "expected: option name <name> type <type> default <value> ...";
    let Some((&"name", rest)) = rest.split_first() else {
        return Err(LineError::new(
            rest.first().copied().unwrap_or("option"),
            expected_form,
        ));
    };
    let (name, rest) = until(rest, "type");
    if name.is_empty() {
        return Err(LineError::new(
            "name",
            "expected an option name after 'name'",
        ));
    }
    let Some((_, rest)) = rest.split_first() else {
        return Err(LineError::new(name[name.len() - 1], expected_form));
    };
    let Some((&kind, rest)) = rest.split_first() else {
        return Err(LineError::new(
            "type",
            "expected spin, float, combo, check or string after 'type'",
        ));
    };
    let kind = parse_option_kind(kind, rest)?;
    Ok(OptionLine {
        name: name.join(" "),
        kind,
    })
}

/// The type, default and range of an `option` line: the words after
/// `type`, the first of which is `kind`.
fn parse_option_kind(kind: &str, rest: &[&str]) -> Result<OptionKind, LineError> {
    Ok(match kind {
        "spin" | "float" => {
            let mut parameters = Parameters::new(rest);
            let mut values: [Option<&str>; 3] = [None; 3];
            while let Some(keyword) = parameters.keyword()? {
                let slot = ["default", "min", "max"]
                    .iter()
                    .position(|known| *known == keyword)
                    .ok_or_else(|| LineError::new(keyword, "expected default, min or max"))?;
                values[slot] = Some(parameters.value(keyword, "a number")?);
            }
            let [Some(default), Some(min), Some(max)] = values else {
                return Err(LineError::new(
                    kind,
                    format!("expected default, min and max after 'type {kind}'"),
                ));
            };
            if kind == "spin" {
                let number = |text: &str| {
                    text.parse::<i64>()
                        .map_err(|_| LineError::new(text, "expected a whole number"))
                };
                OptionKind::Spin {
                    default: number(default)?,
                    min: number(min)?,
                    max: number(max)?,
                }
            } else {
                let number = |text: &str| {
                    text.parse::<f32>()
                        .map_err(|_| LineError::new(text, "expected a number"))
                };
                OptionKind::Float {
                    default: number(default)?,
                    min: number(min)?,
                    max: number(max)?,
                }
            }
        }
        "combo" => {
            let Some((&"default", rest)) = rest.split_first() else {
                return Err(LineError::new(
                    "combo",
                    "expected 'default' after 'type combo'",
                ));
            };
            let (default, mut rest) = until(rest, "var");
            let mut values = Vec::new();
            while let Some((_, after)) = rest.split_first() {
                let (value, next) = until(after, "var");
                if value.is_empty() {
                    return Err(LineError::new("var", "expected a value after 'var'"));
                }
                values.push(value.join(" "));
                rest = next;
            }
            OptionKind::Combo {
                default: default.join(" "),
                values,
            }
        }
        "check" => match rest {
            ["default", value] => OptionKind::Check {
                default: value
                    .parse::<bool>()
                    .map_err(|_| LineError::new(value, "expected true or false after 'default'"))?,
            },
            _ => {
                return Err(LineError::new(
                    "check",
                    "expected 'default true' or 'default false' after 'type check'",
                ))
            }
        },
        "string" => match rest.split_first() {
            Some((&"default", value)) => OptionKind::Text {
                default: value.join(" "),
            },
            _ => {
                return Err(LineError::new(
                    "string",
                    "expected 'default' after 'type string'",
                ))
            }
        },
        other => {
            return Err(LineError::new(
                other,
                "expected spin, float, combo, check or string after 'type'",
            ))
        }
    })
}

fn parse_info(rest: &[&str]) -> Result<Reply, LineError> {
    if let Some((&"string", text)) = rest.split_first() {
        return Ok(Reply::InfoString(text.join(" ")));
    }
    if rest.is_empty() {
        return Err(LineError::new(
            "info",
            "expected 'string' or search fields after 'info'",
        ));
    }
    let mut info = Info::default();
    let mut parameters = Parameters::new(rest);
    let count = "a whole number";
    while let Some(keyword) = parameters.keyword()? {
        match keyword {
            "depth" => info.depth = Some(parameters.number(keyword, count)?),
            "seldepth" => info.seldepth = Some(parameters.number(keyword, count)?),
            "multipv" => info.multipv = Some(parameters.number(keyword, count)?),
            "winprob" => info.winprob = Some(parameters.number(keyword, count)?),
            "nodes" => info.nodes = Some(parameters.number(keyword, count)?),
            "nps" => info.nps = Some(parameters.number(keyword, count)?),
            "hashfull" => info.hashfull = Some(parameters.number(keyword, count)?),
            "time" => info.time = Some(parameters.number(keyword, count)?),
            "score" => {
                let unit = parameters.value(keyword, "'cp' or 'mate'")?;
                let number = parameters.value(unit, "a whole number")?;
                let value = number
                    .parse::<i64>()
                    .map_err(|_| LineError::new(number, "expected a whole number"))?;
                info.score = Some(match unit {
                    "cp" => Score::Centipawns(value),
                    "mate" if value != 0 => Score::Mate(value),
                    "mate" => {
                        return Err(LineError::new(number, "expected a mate distance other than 0"))
                    }
                    _ => return Err(LineError::new(unit, "expected 'cp' or 'mate' after 'score'")),
                });
            }
            "wdl" => {
                let mut chances = [0; 3];
                for chance in &mut chances {
                    *chance = parameters.number(keyword, "three whole numbers (per mille)")?;
                }
                info.wdl = Some(chances);
            }
            "pv" => {
                info.pv = parameters.rest().iter().map(|turn| turn.to_string()).collect();
                if info.pv.is_empty() {
                    return Err(LineError::new("pv", "expected turn tokens after 'pv'"));
                }
            }
            other => {
                return Err(LineError::new(
                    other,
                    "expected an info field: string, depth, seldepth, multipv, score, winprob, wdl, nodes, nps, hashfull, time or pv",
                ))
            }
        }
    }
    Ok(Reply::Info(info))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::option_specs;

    #[test]
    fn written_replies_read_back() {
        let mut replies = vec![
            Reply::Id {
                field: IdField::Name,
                value: "Supernova 0.1.0".into(),
            },
            Reply::Id {
                field: IdField::Author,
                value: "the Supernova developers".into(),
            },
            Reply::HwiOk,
            Reply::ReadyOk,
            Reply::InfoString("decision search".into()),
            Reply::error("'bogus': unknown command"),
            Reply::best_move(Some("sac.y3.Home0,move.g1.Delos.Home1".into())),
            Reply::best_move(None),
            Reply::BestMove {
                turn: Some("build.g1.Home0".into()),
                ponder: Some("disc.g3.Home1.b2.Delos".into()),
            },
            Reply::Info(Info {
                depth: Some(9),
                seldepth: Some(24),
                multipv: Some(1),
                score: Some(Score::Centipawns(-114)),
                winprob: Some(443),
                wdl: Some([443, 0, 557]),
                nodes: Some(4672),
                nps: Some(327_344),
                hashfull: Some(10),
                time: Some(14),
                pv: vec!["build.y1.Home0".into(), "pass".into()],
            }),
            Reply::Info(Info {
                nodes: Some(0),
                ..Info::default()
            }),
            Reply::Info(Info {
                score: Some(Score::Mate(-2)),
                winprob: Some(0),
                pv: vec!["pass".into()],
                ..Info::default()
            }),
            Reply::Option(OptionLine {
                name: "Ponder".into(),
                kind: OptionKind::Check { default: false },
            }),
            Reply::Option(OptionLine {
                name: "Clear Hash".into(),
                kind: OptionKind::Text {
                    default: String::new(),
                },
            }),
        ];
        replies.extend(
            option_specs()
                .iter()
                .map(|spec| Reply::Option(OptionLine::from(spec))),
        );
        for reply in replies {
            let line = reply.to_string();
            assert_eq!(parse(&line).unwrap(), reply, "{line}");
        }
    }

    #[test]
    fn the_session_format_is_kept() {
        let line = "info depth 9 seldepth 24 multipv 1 score cp 114 winprob 557 nodes 4672 nps 327344 hashfull 10 time 14 pv build.y1.Home0 build.y1.Home1";
        assert_eq!(parse(line).unwrap().to_string(), line);
        let line = "option name Rules type combo default standard var standard var sdg var cli";
        assert_eq!(parse(line).unwrap().to_string(), line);
        let line = "option name Move Overhead type spin default 50 min 0 max 5000";
        assert_eq!(parse(line).unwrap().to_string(), line);
    }

    #[test]
    fn bad_replies_name_the_word() {
        for (line, keyword, token) in [
            ("bestmove", "bestmove", "bestmove"),
            ("bestmove pass ponder", "bestmove", "ponder"),
            ("bestmove pass ponder pass pass", "bestmove", "ponder"),
            ("bestmove pass pondering pass", "bestmove", "pondering"),
            ("bestmov e", "bestmov", "bestmov"),
            ("info nonsense 12 ~~", "info", "nonsense"),
            ("info depth 3 depth 4", "info", "depth"),
            ("info score mated 3", "info", "mated"),
            ("info score mate 0", "info", "0"),
            ("info wdl 1 2", "info", "wdl"),
            ("info proof win", "info", "proof"),
            ("info nodes -1", "info", "-1"),
            ("id", "id", "id"),
            ("id name", "id", "name"),
            ("option name X type check default maybe", "option", "maybe"),
            ("option name X type check", "option", "check"),
            ("option name X type spin default 1 min 0", "option", "spin"),
            ("readyok now", "readyok", "now"),
            ("", "", ""),
            (
                "bestmove\u{a0}pass",
                "bestmove\u{a0}pass",
                "bestmove\u{a0}pass",
            ),
        ] {
            let error = parse(line).unwrap_err();
            assert_eq!(error.keyword, keyword, "{line}: {error}");
            assert_eq!(error.error.token, token, "{line}: {error}");
        }
    }
}
