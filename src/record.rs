//! Game records judged by the rules core: replaying SuperDuperGames
//! transcripts turn by turn, and the positions they pass through.
//!
//! [`GameRecord`] is a record read with [`crate::notation::sdg`], or a
//! Board Game Arena game log read into the same form by [`bga`]; which one
//! a text is, [`GameRecord::parse_text`] tells by its content, so every
//! command that reads records through [`GameRecord::read_file`] takes
//! both. Replaying it
//! plays every turn on a [`Board`] with the given rules and stops at the first
//! turn the rules reject, so that a replay over an archive tells real rule
//! breaks (and SDG's own bugs) from games that simply ended. [`GameRecord::walk`]
//! exposes the positions before each turn for tools that analyse real games
//! (tactics extraction, annotation).
//!
//! Results are judged by the rules layer's [`History`], like every other
//! game: elimination on the board, and repetition and the turn limit under
//! the rules in force. SuperDuperGames had neither (every archived game
//! names a winner, and most ended by resignation or time-out), but records
//! written by `supernova match` do: their header names the match's draw
//! rules as variants (`Variants: "Repetition auto@3, Max turns 200"`), which
//! replace the given rules' repetition rule and turn limit, and a
//! `Referee:` comment on the last turn states the result and its reason
//! ([`RecordedResult`]), forfeits included, which are not a rules matter.

use std::fmt;

use crate::notation::error::excerpt;
use crate::notation::multi::MultiBoard;
use crate::notation::sdg::{parse_record, Header, RecordTurn};
use crate::notation::turn::{ActionText, TurnError};
use crate::notation::{Board, ParseError};
use crate::rules::multi::{MultiAction, MultiOutcome, Seat};
use crate::rules::{
    parse_repetition, Action, EndReason, GameResult, GameStatus, History, Outcome, PlayError,
    Player, Position, Rules, Timewarp,
};

pub use crate::notation::sdg::write_record;

pub mod bga;
pub mod multi;

/// Variants that change nothing on the board: rating, clocks and undo are
/// platform features, so these games replay under the normal rules.
const HARMLESS_VARIANTS: [&str; 3] = ["Unrated", "Hard time", "No undo"];

/// The record variant of the Red Alert handicap (`Red Alert`, or `Red
/// Alert 2` when it also warns of two-turn threats).
pub const RED_ALERT_VARIANT: &str = "Red Alert";
/// The record variant of the Brain Transference handicap.
pub const BRAIN_TRANSFERENCE_VARIANT: &str = "Brain Transference";
/// The record variant of the Tactical Computer handicap (`Tactical
/// Computer 3`: three tokens).
pub const TACTICAL_COMPUTER_VARIANT: &str = "Tactical Computer";

/// Whether a variant names one of the rulebook's handicaps that change
/// nothing on the board (`crate::tools::handicaps`): the game replays
/// under the normal rules. The timewarp, which changes the turn order, is
/// read by [`GameRecord::timewarp`].
pub fn is_handicap_variant(variant: &str) -> bool {
    [
        RED_ALERT_VARIANT,
        BRAIN_TRANSFERENCE_VARIANT,
        TACTICAL_COMPUTER_VARIANT,
    ]
    .iter()
    .any(|name| {
        variant
            .strip_prefix(name)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
    })
}

/// The variant that names a record's repetition rule: `Repetition auto@3`.
pub const REPETITION_VARIANT: &str = "Repetition ";

/// The variant that names a record's turn limit: `Max turns 200`.
pub const TURN_LIMIT_VARIANT: &str = "Max turns ";

/// The name on the comment line that states a record's result.
const REFEREE_COMMENT: &str = "\tReferee: ";

/// A result as a record states it in its `Referee:` comment: who won, and
/// why in words (a rules reason such as `repetition`, or `forfeit: ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedResult {
    /// `Win(player)` or `Draw`.
    pub outcome: Outcome,
    /// The reason as written: an [`EndReason::word`], or another text.
    pub reason: String,
}

impl RecordedResult {
    /// The result of a game the rules ended.
    pub fn from_result(result: &GameResult) -> RecordedResult {
        RecordedResult {
            outcome: result.outcome,
            reason: result.reason.word().to_string(),
        }
    }

    /// The reason as a rules reason, when it is one.
    pub fn end_reason(&self) -> Option<EndReason> {
        EndReason::from_word(&self.reason)
    }

    /// The PGN-style score from player 0's side.
    pub fn score(&self) -> &'static str {
        match self.outcome {
            Outcome::Win(Player::First) => "1-0",
            Outcome::Win(Player::Second) => "0-1",
            _ => "1/2-1/2",
        }
    }

    /// The comment line that states it: `\tReferee: 1/2-1/2 repetition`.
    /// Line breaks in the reason become spaces, so it stays one line.
    pub fn comment(&self) -> String {
        let reason: String = self
            .reason
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!("{REFEREE_COMMENT}{} {reason}", self.score())
    }

    /// Reads a comment line written by [`RecordedResult::comment`].
    pub fn parse_comment(line: &str) -> Option<RecordedResult> {
        let rest = line.strip_prefix(REFEREE_COMMENT)?;
        let (score, reason) = rest.split_once(' ').unwrap_or((rest, ""));
        let outcome = match score {
            "1-0" => Outcome::Win(Player::First),
            "0-1" => Outcome::Win(Player::Second),
            "1/2-1/2" => Outcome::Draw,
            _ => return None,
        };
        Some(RecordedResult {
            outcome,
            reason: reason.trim().to_string(),
        })
    }
}

impl fmt::Display for RecordedResult {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{} {}", self.score(), self.reason)
    }
}

/// A whole game as recorded: header and numbered turns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Who played, when, the variants and the site's verdict.
    pub header: Header,
    /// The turns in order, numbered from 1.
    pub turns: Vec<RecordTurn>,
}

/// What a replayed turn is made of, by the kind of game: a two-player
/// [`Board`] replays [`Action`]s by a [`Player`] to an [`Outcome`], a
/// [`MultiBoard`] seat-named actions by a seat to a multi-player outcome.
/// One [`ReplayedTurn`] then serves both replays.
pub trait ReplayBoard: Clone + fmt::Debug + Eq {
    /// One step of a turn.
    type Action: Clone + fmt::Debug + Eq;
    /// Who plays a turn.
    type Mover: Copy + fmt::Debug + Eq;
    /// The result on the board.
    type Outcome: Copy + fmt::Debug + Eq;
}

impl ReplayBoard for Board {
    type Action = Action;
    type Mover = Player;
    type Outcome = Outcome;
}

impl ReplayBoard for MultiBoard {
    type Action = MultiAction;
    type Mover = Seat;
    type Outcome = MultiOutcome;
}

/// One legal turn of a replayed game, with the position it was played from;
/// a two-player one unless `B` says otherwise ([`multi::MultiReplayedTurn`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayedTurn<B: ReplayBoard = Board> {
    /// The board (position and names) before the turn.
    pub board: B,
    /// The turn's actions, resolved against `board` (SDG's padding passes
    /// inside a sacrifice are dropped when nothing is left to pass).
    pub actions: Vec<B::Action>,
    /// For each action, the name the record gave the system it discovered,
    /// if it is a discovery (see [`crate::notation::turn::NamedTurn`]): print
    /// the turn with `format_named_turn` to show the record's names.
    pub names: Vec<Option<String>>,
    /// The site's turn number.
    pub number: u32,
    /// Who played the turn.
    pub mover: B::Mover,
    /// The result on the board after the turn.
    pub outcome: B::Outcome,
}

/// Why a recorded turn cannot be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// A step is illegal, names no live system, or the turn cannot end.
    Turn(TurnError),
    /// The turn line names the player who is not to move.
    WrongMover {
        /// Who should move, by the turn order.
        expected: String,
        /// Who the record says moved.
        found: String,
    },
    /// The game was already over before this turn (on the board, or by
    /// the record's repetition rule or turn limit).
    GameOver(GameResult),
    /// The turn has no steps at all.
    NoActions,
    /// A multi-player game was already decided before this turn (the
    /// text says who had won).
    Decided(String),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Turn(error) => write!(formatter, "{error}"),
            ReplayError::WrongMover { expected, found } => write!(
                formatter,
                "the record has {} moving, but it is {}'s turn",
                excerpt(found),
                excerpt(expected)
            ),
            ReplayError::GameOver(result) => match (result.reason, result.outcome) {
                (EndReason::Elimination, Outcome::Win(player)) => write!(
                    formatter,
                    "the game was already over on the board (player {} had won) (R11.1)",
                    player.index()
                ),
                (EndReason::MutualElimination, _) => write!(
                    formatter,
                    "the game was already over on the board (it was a draw) (R11.1)"
                ),
                (reason, _) => write!(
                    formatter,
                    "the game was already over ({} {}) (R11.5)",
                    result.score(),
                    reason.word()
                ),
            },
            ReplayError::NoActions => write!(formatter, "the turn has no actions"),
            ReplayError::Decided(who) => write!(formatter, "the game was already over ({who})"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// The first turn of a game that the rules reject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalTurn {
    /// The site's turn number.
    pub number: u32,
    /// The turn's one-line text, steps joined by `; `.
    pub text: String,
    /// Exactly why it is rejected.
    pub reason: ReplayError,
    /// Whether the `sdg` rules accept this turn where the replay's rules do
    /// not: the record is then most likely from SuperDuperGames, which
    /// allowed more than the standard rules, and the message says so.
    pub sdg_accepts: bool,
}

impl fmt::Display for IllegalTurn {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "illegal turn {} \"{}\": {}",
            self.number,
            excerpt(&self.text),
            self.reason
        )?;
        if self.sdg_accepts {
            write!(
                formatter,
                " (SuperDuperGames allowed this: replay with the sdg rules, --rules sdg)"
            )?;
        }
        Ok(())
    }
}

/// A replay of a game as far as the rules allow.
#[derive(Clone, Debug)]
pub struct Walk {
    /// Every legal turn, with the board before it.
    pub turns: Vec<ReplayedTurn>,
    /// The board after the last legal turn.
    pub board: Board,
    /// The result on the board after the last legal turn.
    pub outcome: Outcome,
    /// The game from the empty start to the last legal turn.
    pub history: History,
    /// Where the game stands after the last legal turn, under the rules of
    /// the walk (the record's variants applied).
    pub status: GameStatus,
    /// The first illegal turn, where the replay stopped.
    pub illegal: Option<IllegalTurn>,
}

/// What a replay concluded about one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every turn is legal and `player` won on the board.
    Win {
        /// The winner.
        player: Player,
        /// The winner's name.
        name: String,
    },
    /// Every turn is legal and the game is drawn: both players eliminated
    /// together, or by the record's repetition rule or turn limit (or a
    /// repetition claim the record states and the rules allow).
    Draw(EndReason),
    /// Every turn is legal and the rules did not end the game: it ended off
    /// the board (resignation, time-out, forfeit).
    Unfinished,
    /// Every turn of a multi-player game is legal and these seats won on
    /// the board (several only when Good players share a win).
    MultiWin {
        /// The winning seats (0 moves first).
        seats: Vec<u8>,
        /// Their names.
        names: Vec<String>,
    },
    /// The replay stopped at this turn.
    Illegal(IllegalTurn),
    /// The game was not replayed: it is not a two-player game of the plain
    /// rules (the reason says why).
    Skipped(String),
}

/// The structured result of replaying one record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReport {
    /// The site's game number.
    pub game_number: u64,
    /// The replay's conclusion.
    pub verdict: Verdict,
    /// The record's own `Winner:`, for comparison.
    pub record_winner: Option<String>,
    /// The result the record's `Referee:` comment states, if it has one.
    pub record_result: Option<RecordedResult>,
}

impl GameReport {
    /// Whether the board's verdict matches the record's `Winner:`: `None`
    /// when the board decided nothing (unfinished, illegal, skipped).
    pub fn agrees_with_record(&self) -> Option<bool> {
        match &self.verdict {
            Verdict::Win { name, .. } => Some(
                self.record_winner
                    .as_deref()
                    .is_some_and(|winner| winner.eq_ignore_ascii_case(name)),
            ),
            Verdict::MultiWin { names, .. } => Some(names.iter().any(|name| {
                self.record_winner
                    .as_deref()
                    .is_some_and(|winner| winner.eq_ignore_ascii_case(name))
            })),
            Verdict::Draw(_) => Some(
                self.record_winner.is_none()
                    && self
                        .record_result
                        .as_ref()
                        .is_none_or(|result| result.outcome == Outcome::Draw),
            ),
            _ => None,
        }
    }
}

impl fmt::Display for GameReport {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.verdict {
            Verdict::Win { player, name } => write!(
                formatter,
                "player {} ({}) wins on the board",
                player.index(),
                excerpt(name)
            )?,
            Verdict::Draw(reason) => match reason {
                EndReason::Repetition => write!(formatter, "draw by repetition")?,
                EndReason::RepetitionClaim => write!(formatter, "draw by a claimed repetition")?,
                EndReason::TurnLimit => write!(formatter, "draw at the turn limit")?,
                _ => write!(formatter, "draw on the board")?,
            },
            Verdict::Unfinished => write!(formatter, "unfinished")?,
            Verdict::MultiWin { seats, names } => {
                let winners: Vec<String> = seats
                    .iter()
                    .zip(names)
                    .map(|(seat, name)| format!("seat {seat} ({})", excerpt(name)))
                    .collect();
                let verb = if winners.len() == 1 { "wins" } else { "win" };
                write!(formatter, "{} {verb} on the board", winners.join(" and "))?
            }
            Verdict::Illegal(turn) => write!(formatter, "{turn}")?,
            Verdict::Skipped(reason) => return write!(formatter, "skipped: {reason}"),
        }
        write!(
            formatter,
            " (record: Winner {}",
            excerpt(self.record_winner.as_deref().unwrap_or("none"))
        )?;
        if let Some(result) = &self.record_result {
            write!(formatter, ", result {result}")?;
        }
        write!(formatter, ")")
    }
}

/// Why the position before a turn cannot be shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShowError {
    /// The game is not one this replay handles.
    Skipped(String),
    /// There is no such turn.
    OutOfRange {
        /// The turn asked for.
        number: u32,
        /// The last turn that can be shown (one past the record's last turn
        /// shows the final position).
        last: u32,
    },
    /// An earlier turn is illegal, so the position is unknown.
    Illegal(IllegalTurn),
}

impl fmt::Display for ShowError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShowError::Skipped(reason) => write!(formatter, "cannot replay this game: {reason}"),
            ShowError::OutOfRange { number, last } => write!(
                formatter,
                "turn {number} is out of range: expected 1 to {last} ({last} shows the final position)"
            ),
            ShowError::Illegal(turn) => {
                write!(formatter, "the replay stops before that turn: {turn}")
            }
        }
    }
}

impl std::error::Error for ShowError {}

impl GameRecord {
    /// Reads a record in the SDG archive format.
    ///
    /// # Errors
    /// Names the line, the offending token and what was expected.
    pub fn parse_sdg(text: &str) -> Result<GameRecord, ParseError> {
        let (header, turns) = parse_record(text)?;
        Ok(GameRecord { header, turns })
    }

    /// Reads a record in either format it may come in, told apart by its
    /// content ([`bga::looks_like_bga`]): a Board Game Arena game log
    /// ([`bga`]), or else an SDG record, whose reader's errors then say
    /// what the text lacks. Every command that takes a record reads it so.
    ///
    /// # Errors
    /// Names the line and what is wrong there, as the format's reader says.
    pub fn parse_text(text: &str) -> Result<GameRecord, ParseError> {
        if bga::looks_like_bga(text) {
            bga::parse(text)
        } else {
            GameRecord::parse_sdg(text)
        }
    }

    /// [`GameRecord::parse_text`] for a file's bytes: the readers' bounds
    /// count the bytes as they are, before bytes that are not UTF-8 become
    /// U+FFFD.
    ///
    /// # Errors
    /// As [`GameRecord::parse_text`].
    pub fn parse_bytes(bytes: &[u8]) -> Result<GameRecord, ParseError> {
        if bga::looks_like_bga(&String::from_utf8_lossy(bytes)) {
            return bga::parse_bytes(bytes);
        }
        let (header, turns) = crate::notation::sdg::parse_record_bytes(bytes)?;
        Ok(GameRecord { header, turns })
    }

    /// Reads and parses a record file, an SDG record or a Board Game Arena
    /// log ([`GameRecord::parse_bytes`]), refusing a file too large to be a
    /// record ([`crate::notation::sdg::read_record_bytes`]); sizes in
    /// messages count the file's bytes.
    ///
    /// # Errors
    /// The file cannot be read or parsed; the message starts with its path.
    pub fn read_file(path: &std::path::Path) -> Result<GameRecord, String> {
        let limit = crate::notation::sdg::MAX_RECORD_BYTES as u64;
        let bytes = crate::files::read_bounded(path, limit)
            .map_err(|error| format!("{}: {}", path.display(), error.message("a game record")))?;
        GameRecord::parse_bytes(&bytes).map_err(|error| format!("{}: {error}", path.display()))
    }

    /// Reads and parses every record file, in order.
    ///
    /// # Errors
    /// The first file that cannot be read or parsed, as [`GameRecord::read_file`] says.
    pub fn read_files<P: AsRef<std::path::Path>>(paths: &[P]) -> Result<Vec<GameRecord>, String> {
        paths
            .iter()
            .map(|path| GameRecord::read_file(path.as_ref()))
            .collect()
    }

    /// Writes the record in the SDG archive format.
    pub fn to_sdg(&self) -> String {
        write_record(&self.header, &self.turns)
    }

    /// Why this record is not replayed, if it is not: more or fewer than two
    /// players, or a variant that changes the rules (Sinister, Left man
    /// down) or that is not understood.
    pub fn unsupported(&self) -> Option<String> {
        let seats: Vec<char> = self.header.participants.iter().map(|p| p.seat).collect();
        if seats.len() != 2 || !seats.contains(&'N') || !seats.contains(&'S') {
            return Some(format!(
                "not a two-player game ({} participants)",
                seats.len()
            ));
        }
        if let Err(reason) = self.rules(&Rules::STANDARD) {
            return Some(reason);
        }
        if let Err(reason) = self.timewarp() {
            return Some(reason);
        }
        self.header
            .variants
            .iter()
            .find(|variant| {
                !HARMLESS_VARIANTS
                    .iter()
                    .any(|harmless| harmless.eq_ignore_ascii_case(variant))
                    && !variant.starts_with(REPETITION_VARIANT)
                    && !variant.starts_with(TURN_LIMIT_VARIANT)
                    && Timewarp::parse_variant(variant).is_none()
                    && !is_handicap_variant(variant)
            })
            .map(|variant| format!("variant \"{}\" changes the rules", excerpt(variant)))
    }

    /// `rules` with the record's own draw rules: a `Repetition R` variant
    /// (R as the `Repetition` option reads it: `off`, `claim@N`, `auto@N`)
    /// replaces the repetition rule, and a `Max turns N` variant the turn
    /// limit (0 = none). Records without them keep `rules` as they are.
    ///
    /// # Errors
    /// A draw-rule variant whose value is not understood, named.
    pub fn rules(&self, rules: &Rules) -> Result<Rules, String> {
        let mut rules = *rules;
        for variant in &self.header.variants {
            if let Some(value) = variant.strip_prefix(REPETITION_VARIANT) {
                rules.repetition = parse_repetition(value.trim()).ok_or_else(|| {
                    format!("variant \"{variant}\": expected Repetition off, claim@N or auto@N")
                })?;
            } else if let Some(value) = variant.strip_prefix(TURN_LIMIT_VARIANT) {
                let limit: u32 = value.trim().parse().map_err(|_| {
                    format!("variant \"{variant}\": expected Max turns and a whole number")
                })?;
                rules.max_turns = (limit > 0).then_some(limit);
            }
        }
        Ok(rules)
    }

    /// The Second Turn Timewarp the record was played with, from its
    /// `Timewarp K for player P` variant ([`Timewarp::variant`]): the
    /// replay then gives player P its K bonus turns after setup.
    ///
    /// # Errors
    /// A timewarp variant that is not understood, named.
    pub fn timewarp(&self) -> Result<Option<Timewarp>, String> {
        self.header
            .variants
            .iter()
            .find_map(|variant| Timewarp::parse_variant(variant))
            .transpose()
    }

    /// The result the record states in a `Referee:` comment of its last
    /// turn (as `supernova match` writes it), if any.
    pub fn recorded_result(&self) -> Option<RecordedResult> {
        self.turns
            .last()?
            .comments
            .iter()
            .rev()
            .find_map(|line| RecordedResult::parse_comment(line))
    }

    /// Plays the turns in order from the empty map, each on the board left by
    /// the previous one, until the end or the first illegal turn. Homeworlds
    /// are named after their players; discovered systems take the record's
    /// names. The game is judged by a [`History`] under `rules` with the
    /// record's draw rules ([`GameRecord::rules`]): a turn after the end of
    /// the game is illegal.
    ///
    /// The caller should check [`GameRecord::unsupported`] first; a record
    /// without a North and a South player stops at turn 1 (wrong mover).
    pub fn walk(&self, rules: &Rules) -> Walk {
        let rules = self.rules(rules).unwrap_or(*rules);
        let mut board = Board::default();
        for player in Player::BOTH {
            if let Some(name) = self.header.player_name(player) {
                board.names.set(player.index() as u8, name);
            }
        }
        let started = match self.timewarp().ok().flatten() {
            Some(timewarp) => History::with_timewarp(Position::start(), timewarp),
            None => History::new(Position::start()).map_err(|error| error.to_string()),
        };
        let mut history = match started {
            Ok(history) => history,
            Err(_) => unreachable!("the start position is at the start of a turn, in setup"),
        };
        let mut turns = Vec::with_capacity(self.turns.len());
        let mut illegal = None;
        for turn in &self.turns {
            let stop = |reason| {
                Some(IllegalTurn {
                    number: turn.number,
                    text: turn.text(),
                    reason,
                    sdg_accepts: false,
                })
            };
            if let GameStatus::Over(result) = history.status(&rules) {
                illegal = stop(ReplayError::GameOver(result));
                break;
            }
            let mover = board.position.side_to_move();
            let expected = self.header.player_name(mover).unwrap_or("?");
            if !expected.eq_ignore_ascii_case(&turn.player) {
                illegal = stop(ReplayError::WrongMover {
                    expected: expected.to_string(),
                    found: turn.player.clone(),
                });
                break;
            }
            if turn.steps.is_empty() {
                illegal = stop(ReplayError::NoActions);
                break;
            }
            let texts: Vec<ActionText> =
                turn.steps.iter().map(|step| step.action.clone()).collect();
            let describe = |index: usize| {
                turn.steps
                    .get(index)
                    .map_or_else(String::new, |step| step.text.clone())
            };
            let mut next = board.clone();
            let played = match next.play_action_texts(&rules, &texts, describe) {
                Ok(played) => played,
                Err(error) => {
                    let sdg_accepts = rules.name != Rules::SDG.name
                        && board
                            .clone()
                            .play_action_texts(&Rules::SDG, &texts, describe)
                            .is_ok();
                    illegal = stop(ReplayError::Turn(error)).map(|turn| IllegalTurn {
                        sdg_accepts,
                        ..turn
                    });
                    break;
                }
            };
            // The board has checked the turn; the history records it.
            if let Err(error) = history.play(&rules, &played.actions) {
                illegal = stop(match error {
                    PlayError::GameOver(result) => ReplayError::GameOver(result),
                    PlayError::Illegal { reason, .. } | PlayError::CannotEnd(reason) => {
                        ReplayError::Turn(TurnError::CannotEnd(reason))
                    }
                });
                break;
            }
            // The history decides who moves next (a timewarp's bonus turn
            // keeps the mover); the board follows it.
            if next.position.side_to_move() != history.position().side_to_move() {
                let _ = next.position.end_turn(&rules);
            }
            if texts
                .iter()
                .any(|text| matches!(text, ActionText::Homeworld { .. }))
            {
                next.names.set(mover.index() as u8, expected);
            }
            turns.push(ReplayedTurn {
                board: std::mem::replace(&mut board, next),
                actions: played.actions,
                names: played.names,
                number: turn.number,
                mover,
                outcome: played.outcome,
            });
        }
        Walk {
            turns,
            outcome: board.position.outcome(),
            board,
            status: history.status(&rules),
            history,
            illegal,
        }
    }

    /// Replays the game and says what happened: a result judged by the
    /// rules (with the record's draw rules), unfinished, the first illegal
    /// turn, or why it was skipped.
    pub fn replay(&self, rules: &Rules) -> GameReport {
        if self.is_multi_player() {
            return self.replay_multi(rules);
        }
        let record_result = self.recorded_result();
        let verdict = match self.unsupported() {
            Some(reason) => Verdict::Skipped(reason),
            None => {
                let walk = self.walk(rules);
                let claimed = record_result.as_ref().and_then(RecordedResult::end_reason)
                    == Some(EndReason::RepetitionClaim);
                let rules = self.rules(rules).unwrap_or(*rules);
                match (walk.illegal, walk.status) {
                    (Some(turn), _) => Verdict::Illegal(turn),
                    (None, GameStatus::Over(result)) => match result.outcome {
                        Outcome::Win(player) => Verdict::Win {
                            player,
                            name: self.header.player_name(player).unwrap_or("?").to_string(),
                        },
                        _ => Verdict::Draw(result.reason),
                    },
                    (None, GameStatus::Ongoing { .. }) => match walk.history.claim(&rules) {
                        Some(result) if claimed => Verdict::Draw(result.reason),
                        _ => Verdict::Unfinished,
                    },
                }
            }
        };
        GameReport {
            game_number: self.header.game_number,
            verdict,
            record_winner: self.header.winner.clone(),
            record_result,
        }
    }

    /// The board before the site's turn `number`; one past the last turn
    /// gives the final position.
    ///
    /// # Errors
    /// The turn is out of range, the game is not replayable, or an earlier
    /// turn is illegal.
    pub fn board_before(&self, rules: &Rules, number: u32) -> Result<Board, ShowError> {
        if let Some(reason) = self.unsupported() {
            return Err(ShowError::Skipped(reason));
        }
        let last = self.turns.len() as u32 + 1;
        if number == 0 || number > last {
            return Err(ShowError::OutOfRange { number, last });
        }
        let walk = self.walk(rules);
        if let Some(turn) = walk.turns.iter().find(|turn| turn.number == number) {
            return Ok(turn.board.clone());
        }
        match walk.illegal {
            Some(illegal) if illegal.number < number => Err(ShowError::Illegal(illegal)),
            _ => Ok(walk.board),
        }
    }
}
