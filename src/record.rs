//! Game records judged by the rules core: replaying SuperDuperGames
//! transcripts turn by turn, and the positions they pass through.
//!
//! [`GameRecord`] is a record read with [`crate::notation::sdg`]. Replaying it
//! plays every turn on a [`Board`] with the given rules and stops at the first
//! turn the rules reject, so that a replay over an archive tells real rule
//! breaks (and SDG's own bugs) from games that simply ended. [`GameRecord::walk`]
//! exposes the positions before each turn for tools that analyse real games
//! (tactics extraction, annotation).

use std::fmt;

use crate::notation::error::excerpt;
use crate::notation::sdg::{parse_record, Header, RecordTurn};
use crate::notation::turn::{ActionText, TurnError};
use crate::notation::{Board, ParseError};
use crate::rules::{Action, Outcome, Player, Rules};

pub use crate::notation::sdg::write_record;

/// Variants that change nothing on the board: rating, clocks and undo are
/// platform features, so these games replay under the normal rules.
const HARMLESS_VARIANTS: [&str; 3] = ["Unrated", "Hard time", "No undo"];

/// A whole game as recorded: header and numbered turns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Who played, when, the variants and the site's verdict.
    pub header: Header,
    /// The turns in order, numbered from 1.
    pub turns: Vec<RecordTurn>,
}

/// One legal turn of a replayed game, with the position it was played from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayedTurn {
    /// The board (position and names) before the turn.
    pub board: Board,
    /// The turn's actions, resolved against `board` (SDG's padding passes
    /// inside a sacrifice are dropped when nothing is left to pass).
    pub actions: Vec<Action>,
    /// For each action, the name the record gave the system it discovered,
    /// if it is a discovery (see [`crate::notation::turn::NamedTurn`]): print
    /// the turn with `format_named_turn` to show the record's names.
    pub names: Vec<Option<String>>,
    /// The site's turn number.
    pub number: u32,
    /// Who played the turn.
    pub mover: Player,
    /// The result on the board after the turn.
    pub outcome: Outcome,
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
    /// The game was already decided on the board before this turn.
    GameOver(Outcome),
    /// The turn has no steps at all.
    NoActions,
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
            ReplayError::GameOver(outcome) => {
                let result = match outcome {
                    Outcome::Win(player) => format!("player {} had won", player.index()),
                    Outcome::Draw => "it was a draw".to_string(),
                    Outcome::Ongoing => "it was still going".to_string(),
                };
                write!(
                    formatter,
                    "the game was already over on the board ({result}) (R11.1)"
                )
            }
            ReplayError::NoActions => write!(formatter, "the turn has no actions"),
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// Every legal turn, with the board before it.
    pub turns: Vec<ReplayedTurn>,
    /// The board after the last legal turn.
    pub board: Board,
    /// The result on the board after the last legal turn.
    pub outcome: Outcome,
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
    /// Every turn is legal and both players were eliminated together.
    Draw,
    /// Every turn is legal and nobody was eliminated: the game ended off the
    /// board (resignation, time-out).
    Unfinished,
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
            Verdict::Draw => Some(self.record_winner.is_none()),
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
            Verdict::Draw => write!(formatter, "draw on the board")?,
            Verdict::Unfinished => write!(formatter, "unfinished")?,
            Verdict::Illegal(turn) => write!(formatter, "{turn}")?,
            Verdict::Skipped(reason) => return write!(formatter, "skipped: {reason}"),
        }
        write!(
            formatter,
            " (record: Winner {})",
            excerpt(self.record_winner.as_deref().unwrap_or("none"))
        )
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

    /// Writes the record in the SDG archive format.
    pub fn to_sdg(&self) -> String {
        write_record(&self.header, &self.turns)
    }

    /// Why this record is not replayed, if it is not: more or fewer than two
    /// players, or a variant that changes the rules (Sinister, Left man down).
    pub fn unsupported(&self) -> Option<String> {
        let seats: Vec<char> = self.header.participants.iter().map(|p| p.seat).collect();
        if seats.len() != 2 || !seats.contains(&'N') || !seats.contains(&'S') {
            return Some(format!(
                "not a two-player game ({} participants)",
                seats.len()
            ));
        }
        self.header
            .variants
            .iter()
            .find(|variant| {
                !HARMLESS_VARIANTS
                    .iter()
                    .any(|harmless| harmless.eq_ignore_ascii_case(variant))
            })
            .map(|variant| format!("variant \"{}\" changes the rules", excerpt(variant)))
    }

    /// Plays the turns in order from the empty map, each on the board left by
    /// the previous one, until the end or the first illegal turn. Homeworlds
    /// are named after their players; discovered systems take the record's
    /// names.
    ///
    /// The caller should check [`GameRecord::unsupported`] first; a record
    /// without a North and a South player stops at turn 1 (wrong mover).
    pub fn walk(&self, rules: &Rules) -> Walk {
        let mut board = Board::default();
        for player in Player::BOTH {
            if let Some(name) = self.header.player_name(player) {
                board.names.set(player.index() as u8, name);
            }
        }
        let mut turns = Vec::with_capacity(self.turns.len());
        let mut outcome = Outcome::Ongoing;
        for turn in &self.turns {
            let illegal = |reason| IllegalTurn {
                number: turn.number,
                text: turn.text(),
                reason,
                sdg_accepts: false,
            };
            if outcome != Outcome::Ongoing {
                return Walk {
                    turns,
                    board,
                    outcome,
                    illegal: Some(illegal(ReplayError::GameOver(outcome))),
                };
            }
            let mover = board.position.side_to_move();
            let expected = self.header.player_name(mover).unwrap_or("?");
            if !expected.eq_ignore_ascii_case(&turn.player) {
                let reason = ReplayError::WrongMover {
                    expected: expected.to_string(),
                    found: turn.player.clone(),
                };
                return Walk {
                    turns,
                    board,
                    outcome,
                    illegal: Some(illegal(reason)),
                };
            }
            if turn.steps.is_empty() {
                return Walk {
                    turns,
                    board,
                    outcome,
                    illegal: Some(illegal(ReplayError::NoActions)),
                };
            }
            let texts: Vec<ActionText> =
                turn.steps.iter().map(|step| step.action.clone()).collect();
            let before = board.clone();
            let describe = |index: usize| {
                turn.steps
                    .get(index)
                    .map_or_else(String::new, |step| step.text.clone())
            };
            match board.play_action_texts(rules, &texts, describe) {
                Ok(played) => {
                    if texts
                        .iter()
                        .any(|text| matches!(text, ActionText::Homeworld { .. }))
                    {
                        board.names.set(mover.index() as u8, expected);
                    }
                    outcome = played.outcome;
                    turns.push(ReplayedTurn {
                        board: before,
                        actions: played.actions,
                        names: played.names,
                        number: turn.number,
                        mover,
                        outcome,
                    });
                }
                Err(error) => {
                    let sdg_accepts = rules.name != Rules::SDG.name
                        && board
                            .clone()
                            .play_action_texts(&Rules::SDG, &texts, describe)
                            .is_ok();
                    return Walk {
                        turns,
                        board,
                        outcome,
                        illegal: Some(IllegalTurn {
                            sdg_accepts,
                            ..illegal(ReplayError::Turn(error))
                        }),
                    };
                }
            }
        }
        Walk {
            turns,
            board,
            outcome,
            illegal: None,
        }
    }

    /// Replays the game and says what happened: a result on the board,
    /// unfinished, the first illegal turn, or why it was skipped.
    pub fn replay(&self, rules: &Rules) -> GameReport {
        let verdict = match self.unsupported() {
            Some(reason) => Verdict::Skipped(reason),
            None => {
                let walk = self.walk(rules);
                match (walk.illegal, walk.outcome) {
                    (Some(turn), _) => Verdict::Illegal(turn),
                    (None, Outcome::Win(player)) => Verdict::Win {
                        player,
                        name: self.header.player_name(player).unwrap_or("?").to_string(),
                    },
                    (None, Outcome::Draw) => Verdict::Draw,
                    (None, Outcome::Ongoing) => Verdict::Unfinished,
                }
            }
        };
        GameReport {
            game_number: self.header.game_number,
            verdict,
            record_winner: self.header.winner.clone(),
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
