//! What a match is told: the engines (how to start them, their options
//! and turn limits), the openings, and the match's settings, read from the
//! command line's words and files.

use std::path::PathBuf;
use std::time::Duration;

use super::super::stats::Sprt;
use crate::notation::error::excerpt;
use crate::notation::{hwpn, Board};
use crate::rules::{Action, Player, Position, Repetition, Rules, HOME_SLOTS};

/// The built-in openings (positions/openings.txt), used without `--openings`.
pub const DEFAULT_OPENINGS: &str = include_str!("../../../positions/openings.txt");

/// Limits for each of an engine's turns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TurnLimits {
    /// Fixed time per turn, in ms (`go movetime`).
    pub movetime: Option<u64>,
    /// Node limit per turn (`go nodes`).
    pub nodes: Option<u64>,
    /// A clock: starting time and increment per turn, in ms.
    pub clock: Option<(u64, u64)>,
}

impl TurnLimits {
    /// Whether no limit at all is set.
    pub fn is_empty(&self) -> bool {
        self.movetime.is_none() && self.nodes.is_none() && self.clock.is_none()
    }
}

/// Reads a time control `SECONDS[+INCREMENT]`, such as `10+0.1`, into ms.
///
/// # Errors
/// Names the bad text.
pub fn parse_time_control(text: &str) -> Result<(u64, u64), String> {
    let seconds = |part: &str| -> Result<u64, String> {
        part.parse::<f64>()
            .ok()
            .filter(|value| value.is_finite() && *value >= 0.0 && *value < 1e9)
            .map(|value| (value * 1000.0).round() as u64)
            .ok_or_else(|| {
                format!("time control '{text}': expected SECONDS[+INCREMENT], such as 10+0.1")
            })
    };
    match text.split_once('+') {
        Some((base, increment)) => Ok((seconds(base)?, seconds(increment)?)),
        None => Ok((seconds(text)?, 0)),
    }
}

/// One side of the match: how to start it and what to tell it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineConfig {
    /// The name in reports (defaults to the engine's `id name`).
    pub name: Option<String>,
    /// The program to run (defaults to this binary's `engine` subcommand).
    pub program: Option<String>,
    /// Its arguments.
    pub arguments: Vec<String>,
    /// `setoption` name and value pairs, sent after the handshake.
    pub options: Vec<(String, String)>,
    /// Limits for its turns, overriding the match's.
    pub limits: TurnLimits,
}

impl EngineConfig {
    /// Reads `key=value` words: `cmd=PROGRAM`, `arg=ARG` (repeatable),
    /// `name=NAME`, `option.NAME=VALUE`, `movetime=MS`, `nodes=N`,
    /// `tc=SECONDS+INC`. Later words override earlier ones.
    ///
    /// # Errors
    /// Names the bad word.
    pub fn parse<S: AsRef<str>>(words: &[S]) -> Result<EngineConfig, String> {
        let mut config = EngineConfig::default();
        config.apply(words)?;
        Ok(config)
    }

    /// Applies more `key=value` words (the `--each` words, then the engine's own).
    ///
    /// # Errors
    /// Names the bad word.
    pub fn apply<S: AsRef<str>>(&mut self, words: &[S]) -> Result<(), String> {
        for word in words {
            let word = word.as_ref();
            let (key, value) = word.split_once('=').ok_or_else(|| {
                format!(
                    "engine setting '{word}': expected key=value, such as name=A or option.Hash=16"
                )
            })?;
            let number = || {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("engine setting '{word}': expected a whole number"))
            };
            match key {
                "cmd" => self.program = Some(value.to_string()),
                "arg" => self.arguments.push(value.to_string()),
                "name" => self.name = Some(value.to_string()),
                "movetime" => self.limits.movetime = Some(number()?),
                "nodes" => self.limits.nodes = Some(number()?),
                "tc" => self.limits.clock = Some(parse_time_control(value)?),
                _ => match key.strip_prefix("option.") {
                    Some(name) if !name.is_empty() => {
                        // One protocol line each: no line breaks or other
                        // control characters to end it early.
                        if word.chars().any(char::is_control) {
                            return Err(format!(
                                "engine setting '{}': expected an option name and value without control characters",
                                excerpt(word)
                            ));
                        }
                        self.options.retain(|(known, _)| !known.eq_ignore_ascii_case(name));
                        self.options.push((name.to_string(), value.to_string()));
                    }
                    _ => {
                        return Err(format!(
                            "engine setting '{word}': expected a key cmd, arg, name, option.NAME, movetime, nodes or tc"
                        ))
                    }
                },
            }
        }
        Ok(())
    }
}

/// An opening: the text sent to the engines and the board it describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The HWPN as written in the file.
    pub text: String,
    /// The parsed board.
    pub board: Board,
    /// The two setup turns that lead to it (one homeworld action each).
    pub setup: [Action; 2],
}

/// Reads openings: one HWPN per line, `#` comments and blank lines ignored.
/// Each must be the position right after both setup turns (two homes, no
/// other system, player 0 to move) and reachable under `rules`.
///
/// # Errors
/// Names the line and what is wrong with it.
pub fn parse_openings(text: &str, rules: &Rules) -> Result<Vec<Opening>, String> {
    let mut openings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let number = index + 1;
        let board =
            hwpn::parse(line).map_err(|error| format!("openings line {number}: {error}"))?;
        let setup = setup_turns(&board.position, rules)
            .map_err(|reason| format!("openings line {number} '{line}': {reason}"))?;
        openings.push(Opening {
            text: line.to_string(),
            board,
            setup,
        });
    }
    if openings.is_empty() {
        return Err(
            "the openings list is empty: expected HWPN positions, one per line".to_string(),
        );
    }
    Ok(openings)
}

/// The two homeworld actions that lead from the empty start to `position`.
fn setup_turns(position: &Position, rules: &Rules) -> Result<[Action; 2], String> {
    let expected = "expected a position right after both setup turns: two homes with one ship each, no other system, player 0 to move";
    if position.in_setup()
        || position.side_to_move() != Player::First
        || position
            .occupied_slots()
            .any(|slot| slot as usize >= HOME_SLOTS)
    {
        return Err(expected.to_string());
    }
    let mut actions = [Action::Pass; 2];
    let mut replay = Position::start();
    for player in Player::BOTH {
        let system = position.system(player.index() as u8);
        let ships = system.ships[player.index()];
        if ships.len() != 1 || !system.ships[player.opponent().index()].is_empty() {
            return Err(expected.to_string());
        }
        let mut stars = system.stars.copies();
        let star = stars.next().ok_or_else(|| expected.to_string())?;
        let action = Action::Homeworld {
            star,
            second_star: stars.next(),
            ship: ships.copies().next().ok_or_else(|| expected.to_string())?,
        };
        replay
            .try_apply(rules, action)
            .and_then(|()| replay.end_turn(rules).map(|_| ()))
            .map_err(|reason| format!("not reachable under the {} rules: {reason}", rules.name))?;
        actions[player.index()] = action;
    }
    if replay != *position {
        return Err(expected.to_string());
    }
    Ok(actions)
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The two engines, A and B.
    pub engines: [EngineConfig; 2],
    /// Limits for engines that set none of their own.
    pub limits: TurnLimits,
    /// The openings, each played twice.
    pub openings: Vec<Opening>,
    /// Games to play (each opening twice, in order, cycling).
    pub games: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// The rules the referee applies (and sends as the `Rules` option when
    /// not `standard`).
    pub rules: Rules,
    /// Turns after the opening before the game is drawn (0 = no limit).
    pub max_turns: u32,
    /// Occurrences of a start-of-turn position that draw the game.
    pub repetitions: u32,
    /// Extra time past the limit before a silent engine loses.
    pub margin: Duration,
    /// The per-turn deadline when the limits set no time (node limits only).
    pub turn_timeout: Duration,
    /// Where to write one SDG record per game.
    pub transcripts: Option<PathBuf>,
    /// Where to write one protocol log per engine and game (every line
    /// sent, received and written to stderr), for inspection.
    pub logs: Option<PathBuf>,
    /// The game numbers this run plays (a slice of the match, for playing
    /// one match on several machines); `None` plays 1 to `games`. Game `n`
    /// gets the same opening and seats in every slice.
    pub numbers: Option<Vec<usize>>,
    /// Where to write one results file per game (see `results.rs`).
    pub results: Option<PathBuf>,
    /// The bench signature of the build playing, written into every record
    /// and results file (given, since the bench takes seconds to run).
    pub build: Option<String>,
    /// Stop early when this test decides.
    pub sprt: Option<Sprt>,
    /// End a game early when the engines' scores call it lost.
    pub resign: Option<Resign>,
    /// The program for engines that name none (normally this binary).
    pub default_program: String,
    /// Its arguments.
    pub default_arguments: Vec<String>,
}

/// Resign adjudication, as cutechess-cli's `-resign`: a game is scored
/// as lost for an engine that reported a score at least `score` below zero
/// on `turns` of its turns in a row (with `two_sided`, only while its
/// opponent reported at least `score` above zero on as many of its own).
/// Why: games the engines themselves call decided are the long tail of a
/// match's time, most of all against engines too weak to finish them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resign {
    /// Consecutive turns of the engine's own (at least 1).
    pub turns: u32,
    /// The threshold in the protocol's `cp` (the value times 1000, so 900
    /// is a value of 0.9); a proven loss (`score mate` below zero) is below
    /// any threshold.
    pub score: i64,
    /// Whether the opponent must agree.
    pub two_sided: bool,
}

impl Resign {
    /// Reads `movecount=N score=CP` and optionally `twosided=true|false`,
    /// the fields of cutechess-cli's `-resign`.
    ///
    /// # Errors
    /// Names the bad or missing field.
    pub fn parse<S: AsRef<str>>(fields: &[S]) -> Result<Resign, String> {
        let mut turns = None;
        let mut score = None;
        let mut two_sided = false;
        for field in fields {
            let field = field.as_ref();
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| format!("--resign '{field}': expected key=value"))?;
            match key {
                "movecount" => turns = Some(positive(key, value, "a whole number from 1")?),
                "score" => score = Some(positive(key, value, "a whole number of cp above 0")?),
                "twosided" => {
                    two_sided = match value {
                        "true" => true,
                        "false" => false,
                        _ => {
                            return Err(format!(
                                "--resign twosided={value}: expected true or false"
                            ))
                        }
                    };
                }
                _ => {
                    return Err(format!(
                        "--resign '{key}': expected one of movecount, score, twosided"
                    ))
                }
            }
        }
        Ok(Resign {
            turns: turns.ok_or("--resign: movecount=... is missing")?,
            score: score.ok_or("--resign: score=... is missing")?,
            two_sided,
        })
    }
}

/// A `--resign` field's number, above zero; the error names the field and
/// says what was `expected`.
fn positive<T: std::str::FromStr + PartialOrd + Default>(
    key: &str,
    value: &str,
    expected: &str,
) -> Result<T, String> {
    value
        .parse::<T>()
        .ok()
        .filter(|number| *number > T::default())
        .ok_or_else(|| format!("--resign {key}={value}: expected {expected}"))
}

impl MatchConfig {
    /// The `index`th game number to play (from 0), if there is one: the
    /// slice's, or the whole match's.
    pub fn scheduled(&self, index: usize) -> Option<usize> {
        match &self.numbers {
            Some(numbers) => numbers.get(index).copied(),
            None => (index < self.games).then_some(index + 1),
        }
    }

    /// How many games this run plays.
    pub fn scheduled_games(&self) -> usize {
        self.numbers.as_ref().map_or(self.games, Vec::len)
    }

    /// The rules every game is refereed by (and the engines are told):
    /// `rules` with an automatic draw at `repetitions` occurrences of a
    /// start-of-turn position and the turn limit `max_turns` (0 = none).
    pub fn referee_rules(&self) -> Rules {
        Rules {
            repetition: Repetition::Automatic(self.repetitions.max(2)),
            max_turns: (self.max_turns > 0).then_some(self.max_turns),
            ..self.rules
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resign_settings_parse_and_bad_ones_are_named() {
        assert_eq!(
            Resign::parse(&["score=900", "movecount=3"]),
            Ok(Resign {
                turns: 3,
                score: 900,
                two_sided: false
            })
        );
        assert!(
            Resign::parse(&["movecount=2", "score=500", "twosided=true"])
                .unwrap()
                .two_sided
        );
        for (fields, named) in [
            (&["movecount=0", "score=500"][..], "movecount=0"),
            (&["movecount=2", "score=-5"], "score=-5"),
            (&["movecount=2"], "score=... is missing"),
            (&["score=500"], "movecount=... is missing"),
            (
                &["movecount=2", "score=500", "twosided=yes"],
                "twosided=yes",
            ),
            (&["movecount=2", "score=500", "mate=1"], "'mate'"),
            (&["movecount"], "'movecount'"),
        ] {
            let error = Resign::parse(fields).unwrap_err();
            assert!(error.contains(named), "{fields:?}: {error}");
        }
    }

    #[test]
    fn engine_settings_parse() {
        let mut config =
            EngineConfig::parse(&["name=A", "option.Player=greedy", "tc=10+0.1"]).unwrap();
        assert_eq!(config.name.as_deref(), Some("A"));
        assert_eq!(
            config.options,
            [("Player".to_string(), "greedy".to_string())]
        );
        assert_eq!(config.limits.clock, Some((10_000, 100)));
        config.apply(&["option.player=mcts", "nodes=500"]).unwrap();
        assert_eq!(config.options, [("player".to_string(), "mcts".to_string())]);
        assert_eq!(config.limits.nodes, Some(500));
        assert!(EngineConfig::parse(&["bogus"]).is_err());
        assert!(EngineConfig::parse(&["colour=red"]).is_err());
        assert!(EngineConfig::parse(&["nodes=many"]).is_err());
        assert!(EngineConfig::parse(&["option.Hash=16\nquit"]).is_err());
        assert!(parse_time_control("abc").is_err());
    }

    #[test]
    fn built_in_openings_are_valid_and_distinct() {
        let openings = parse_openings(DEFAULT_OPENINGS, &Rules::STANDARD).unwrap();
        assert!(openings.len() >= 50);
        let mut seen = std::collections::HashSet::new();
        for opening in &openings {
            assert!(
                seen.insert(opening.board.position.hash()),
                "{}",
                opening.text
            );
        }
        let error = parse_openings("r1b3:g3:/y2b1::g3/b2:r1: 0\n", &Rules::STANDARD).unwrap_err();
        assert!(error.contains("line 1"), "{error}");
        let error = parse_openings("r1b3:g1:/y2b1::g3 0\n", &Rules::STANDARD).unwrap_err();
        assert!(error.contains("not reachable"), "{error}");
    }
}
