//! The game history and the one referee: every result that depends on more
//! than the position itself is judged here.
//!
//! A [`Position`] knows whether someone was eliminated, but not whether it
//! has occurred before or how many turns the game has lasted. [`History`]
//! keeps what those judgements need, in the spirit of KataGo's
//! `BoardHistory`: the position the game started from, the turns played
//! since, the hash of every earlier start-of-turn position (which the search
//! reads to score repetitions), how often each position has occurred, and how
//! many turns were played after setup. [`History::status`] turns that into a
//! typed [`GameStatus`] under a [`Rules`] value (its repetition rule and turn
//! limit), so a change to either rule is made in one place for the engine,
//! self-play, the match runner and the record tools alike.
//!
//! Everything is kept incrementally: [`History::play`] costs the turn's
//! actions plus one hash-map update, and [`History::status`] is O(1), so a
//! game of any length is judged in time linear in its length.

use std::fmt;

use ahash::AHashMap;

use super::piece::Player;
use super::position::{Action, IllegalReason, Outcome, Position, TurnState};
use super::profile::{Repetition, Rules};
use super::timewarp::{Timewarp, TimewarpError};

/// Why a game is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// One player eliminated the other.
    Elimination,
    /// Both players were eliminated in the same turn.
    MutualElimination,
    /// A position occurred as often as the automatic repetition rule allows.
    Repetition,
    /// The side to move claimed a draw by repetition (the `claim@N` rule).
    RepetitionClaim,
    /// The rules' turn limit was reached.
    TurnLimit,
}

impl EndReason {
    /// The word the protocol and the records print for the reason.
    pub fn word(self) -> &'static str {
        match self {
            EndReason::Elimination => "elimination",
            EndReason::MutualElimination => "mutual-elimination",
            EndReason::Repetition => "repetition",
            EndReason::RepetitionClaim => "repetition-claim",
            EndReason::TurnLimit => "turn-limit",
        }
    }

    /// Every reason, for reading words back.
    pub const ALL: [EndReason; 5] = [
        EndReason::Elimination,
        EndReason::MutualElimination,
        EndReason::Repetition,
        EndReason::RepetitionClaim,
        EndReason::TurnLimit,
    ];

    /// Reads a reason from its [`EndReason::word`].
    pub fn from_word(word: &str) -> Option<EndReason> {
        EndReason::ALL
            .into_iter()
            .find(|reason| reason.word().eq_ignore_ascii_case(word))
    }
}

/// A finished game's result, as the rules judge it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameResult {
    /// `Win(player)` or `Draw`, never `Ongoing`.
    pub outcome: Outcome,
    /// How the game ended.
    pub reason: EndReason,
}

impl GameResult {
    /// The score in the PGN style, from player 0's side: `1-0`, `0-1`, `1/2-1/2`.
    pub fn score(&self) -> &'static str {
        match self.outcome {
            Outcome::Win(Player::First) => "1-0",
            Outcome::Win(Player::Second) => "0-1",
            _ => "1/2-1/2",
        }
    }

    /// A draw for `reason`.
    fn draw(reason: EndReason) -> GameResult {
        GameResult {
            outcome: Outcome::Draw,
            reason,
        }
    }
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameStatus {
    /// The game goes on.
    Ongoing {
        /// How many times the current position has occurred (1 = first time).
        repetitions: u32,
        /// Whether the side to move may claim a draw by repetition now.
        claimable: bool,
    },
    /// The game is over.
    Over(GameResult),
}

impl GameStatus {
    /// The result, when the game is over.
    pub fn result(&self) -> Option<GameResult> {
        match self {
            GameStatus::Over(result) => Some(*result),
            GameStatus::Ongoing { .. } => None,
        }
    }
}

/// Writes a repetition rule as the `Repetition` option and the records'
/// `Repetition` variant read it: `off`, `claim@N` or `auto@N`.
pub fn repetition_text(repetition: Repetition) -> String {
    match repetition {
        Repetition::Off => "off".to_string(),
        Repetition::Claim(count) => format!("claim@{count}"),
        Repetition::Automatic(count) => format!("auto@{count}"),
    }
}

/// Reads a repetition rule written by [`repetition_text`]: `off`, `claim@N`
/// or `auto@N` with N at least 2 (in any case).
pub fn parse_repetition(text: &str) -> Option<Repetition> {
    if text.eq_ignore_ascii_case("off") {
        return Some(Repetition::Off);
    }
    let (kind, count) = text.split_once('@')?;
    let count: u32 = count.parse().ok().filter(|&count| count >= 2)?;
    match kind.to_ascii_lowercase().as_str() {
        "claim" => Some(Repetition::Claim(count)),
        "auto" => Some(Repetition::Automatic(count)),
        _ => None,
    }
}

/// Why a history cannot start from a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MidTurn;

impl fmt::Display for MidTurn {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "expected a position at the start of a turn (no turn= field, or turn=s)"
        )
    }
}

impl std::error::Error for MidTurn {}

/// Why a turn cannot be added to a history. The history is then unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The game was already over before the turn.
    GameOver(GameResult),
    /// Action number `index` (from 1) of the turn is illegal.
    Illegal {
        /// 1-based position of the action within the turn.
        index: usize,
        /// Why.
        reason: IllegalReason,
    },
    /// The actions are legal but the turn may not end after them.
    CannotEnd(IllegalReason),
}

impl fmt::Display for PlayError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::GameOver(result) => write!(
                formatter,
                "the game is already over ({} {})",
                result.score(),
                result.reason.word()
            ),
            PlayError::Illegal { index, reason } => {
                write!(formatter, "action {index} is illegal: {reason}")
            }
            PlayError::CannotEnd(reason) => write!(formatter, "the turn cannot end here: {reason}"),
        }
    }
}

impl std::error::Error for PlayError {}

/// A game from some start position: the turns played since, and what the
/// rules need to judge repetition and the turn limit. See the module docs.
#[derive(Clone, Debug)]
pub struct History {
    /// The position the history starts from (at the start of a turn).
    start: Position,
    /// The position now, at the start of the next turn.
    position: Position,
    /// The actions of each turn played since `start`, oldest first.
    turns: Vec<Vec<Action>>,
    /// The hash of the start-of-turn position before each turn, oldest
    /// first: every position of the game but the current one.
    earlier: Vec<u64>,
    /// How often each start-of-turn position has occurred, the current one
    /// included. Only looked up, never iterated, so its order is irrelevant.
    counts: AHashMap<u64, u32>,
    /// Turns played from a position after setup.
    turns_after_setup: u32,
    /// Who played each turn, oldest first.
    movers: Vec<Player>,
    /// The Second Turn Timewarp handicap, when the game has one: who moves
    /// after setup is then not strict alternation ([`super::timewarp`]).
    timewarp: Option<Timewarp>,
    /// Who was to move when setup ended, by ordinary alternation: the
    /// player who starts the alternation after a timewarp's bonus turns.
    ordinary_first: Option<Player>,
}

impl History {
    /// A history that starts at `start`, with no turns played yet.
    ///
    /// # Errors
    /// [`MidTurn`] when `start` is in the middle of a turn.
    pub fn new(start: Position) -> Result<History, MidTurn> {
        if start.turn_state() != TurnState::Start {
            return Err(MidTurn);
        }
        let mut counts = AHashMap::new();
        counts.insert(start.hash(), 1);
        Ok(History {
            start,
            position: start,
            turns: Vec::new(),
            earlier: Vec::new(),
            counts,
            turns_after_setup: 0,
            movers: Vec::new(),
            timewarp: None,
            ordinary_first: (!start.in_setup()).then(|| start.side_to_move()),
        })
    }

    /// A history that starts at `start` (in the setup) under the Second
    /// Turn Timewarp handicap: the rules core then decides who moves after
    /// each turn ([`super::timewarp`]).
    ///
    /// # Errors
    /// A mid-turn start, or one after setup ([`TimewarpError::AfterSetup`]).
    pub fn with_timewarp(start: Position, timewarp: Timewarp) -> Result<History, String> {
        let mut history = History::new(start).map_err(|error| error.to_string())?;
        if !start.in_setup() {
            return Err(TimewarpError::AfterSetup.to_string());
        }
        history.timewarp = Some(timewarp);
        Ok(history)
    }

    /// The game's timewarp, if it has one.
    pub fn timewarp(&self) -> Option<Timewarp> {
        self.timewarp
    }

    /// Who played each turn, oldest first (under a timewarp a player may
    /// play several in a row).
    pub fn movers(&self) -> &[Player] {
        &self.movers
    }

    /// The first turn from which the turns alternate strictly up to now:
    /// 0 in an ordinary game, after a timewarp's bonus turns the turn just
    /// after the last one where a player moved twice in a row. A
    /// controller that can only say "the players alternate" (the
    /// protocol's `position ... moves`) starts from the position before it.
    pub fn alternating_since(&self) -> usize {
        let mut since = 0;
        let mut movers = self.movers.clone();
        movers.push(self.position.side_to_move());
        for index in 1..movers.len() {
            if movers[index] == movers[index - 1] {
                since = index;
            }
        }
        since
    }

    /// Makes room for `additional` more turns.
    pub fn reserve(&mut self, additional: usize) {
        self.turns.reserve(additional);
        self.earlier.reserve(additional);
        self.movers.reserve(additional);
    }

    /// The position the history starts from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The position now (at the start of a turn).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The turns played since the start, oldest first.
    pub fn turns(&self) -> &[Vec<Action>] {
        &self.turns
    }

    /// The hashes ([`Position::hash`]) of the earlier start-of-turn
    /// positions, oldest first; what the search needs to score a line that
    /// repeats the game.
    pub fn earlier_hashes(&self) -> &[u64] {
        &self.earlier
    }

    /// How many times the current position has occurred, this time included.
    pub fn repetitions(&self) -> u32 {
        self.occurrences(self.position.hash())
    }

    /// How many times the start-of-turn position with this hash has occurred.
    pub fn occurrences(&self, hash: u64) -> u32 {
        self.counts.get(&hash).copied().unwrap_or(0)
    }

    /// Turns played from positions after setup (what the turn limit counts).
    pub fn turns_after_setup(&self) -> u32 {
        self.turns_after_setup
    }

    /// Where the game stands under `rules`: elimination first (on the
    /// board), then the automatic repetition rule, then the turn limit.
    pub fn status(&self, rules: &Rules) -> GameStatus {
        match self.position.outcome() {
            Outcome::Win(player) => {
                return GameStatus::Over(GameResult {
                    outcome: Outcome::Win(player),
                    reason: EndReason::Elimination,
                })
            }
            Outcome::Draw => {
                return GameStatus::Over(GameResult::draw(EndReason::MutualElimination))
            }
            Outcome::Ongoing => {}
        }
        let repetitions = self.repetitions();
        let mut claimable = false;
        match rules.repetition {
            Repetition::Automatic(count) if repetitions >= count => {
                return GameStatus::Over(GameResult::draw(EndReason::Repetition))
            }
            Repetition::Claim(count) => claimable = repetitions >= count,
            _ => {}
        }
        if let Some(limit) = rules.max_turns {
            if self.turns_after_setup >= limit {
                return GameStatus::Over(GameResult::draw(EndReason::TurnLimit));
            }
        }
        GameStatus::Ongoing {
            repetitions,
            claimable,
        }
    }

    /// The result of the side to move claiming a draw by repetition now:
    /// `Some` only when the game goes on and the rules allow the claim.
    pub fn claim(&self, rules: &Rules) -> Option<GameResult> {
        match self.status(rules) {
            GameStatus::Ongoing {
                claimable: true, ..
            } => Some(GameResult::draw(EndReason::RepetitionClaim)),
            _ => None,
        }
    }

    /// Plays a turn (its actions, then the end of the turn) and records it.
    /// Returns the outcome on the board after the turn.
    ///
    /// # Errors
    /// The game was over before the turn under `rules`, an action is
    /// illegal, or the turn cannot end. The history is then unchanged.
    pub fn play(&mut self, rules: &Rules, actions: &[Action]) -> Result<Outcome, PlayError> {
        if let GameStatus::Over(result) = self.status(rules) {
            return Err(PlayError::GameOver(result));
        }
        let mut next = self.position;
        for (index, &action) in actions.iter().enumerate() {
            next.try_apply(rules, action)
                .map_err(|reason| PlayError::Illegal {
                    index: index + 1,
                    reason,
                })?;
        }
        let outcome = next.end_turn(rules).map_err(PlayError::CannotEnd)?;
        let mut after_setup = self.turns_after_setup;
        if !self.position.in_setup() {
            after_setup += 1;
        }
        let ordinary_first = self
            .ordinary_first
            .or_else(|| (!next.in_setup()).then(|| next.side_to_move()));
        if let (Some(timewarp), Some(first), Outcome::Ongoing) =
            (self.timewarp, ordinary_first, outcome)
        {
            if next.side_to_move() != timewarp.mover(after_setup, first) {
                // The same player moves again: the position is handed back
                // as a pass would hand it, which no check can refuse at the
                // start of a turn of a game that goes on.
                next.end_turn(rules).map_err(PlayError::CannotEnd)?;
            }
        }
        self.turns_after_setup = after_setup;
        self.ordinary_first = ordinary_first;
        self.movers.push(self.position.side_to_move());
        self.earlier.push(self.position.hash());
        self.turns.push(actions.to_vec());
        *self.counts.entry(next.hash()).or_insert(0) += 1;
        self.position = next;
        Ok(outcome)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rules::{Colour, Piece, PieceSet, System};

    /// A homeworld of two stars and a ship, for the rules core's tests.
    pub(crate) fn homeworld(
        star: (Colour, u8),
        second: (Colour, u8),
        ship: (Colour, u8),
    ) -> Action {
        let piece = |(colour, size): (Colour, u8)| Piece::new(colour, size).unwrap();
        Action::Homeworld {
            star: piece(star),
            second_star: Some(piece(second)),
            ship: piece(ship),
        }
    }

    /// The start, then both setup turns.
    pub(crate) fn after_setup(rules: &Rules) -> History {
        let mut history = History::new(Position::start()).unwrap();
        history
            .play(
                rules,
                &[homeworld(
                    (Colour::Red, 1),
                    (Colour::Blue, 3),
                    (Colour::Green, 3),
                )],
            )
            .unwrap();
        history
            .play(
                rules,
                &[homeworld(
                    (Colour::Yellow, 2),
                    (Colour::Blue, 1),
                    (Colour::Green, 3),
                )],
            )
            .unwrap();
        history
    }

    #[test]
    fn counts_are_kept_incrementally() {
        let rules = Rules {
            repetition: Repetition::Off,
            ..Rules::STANDARD
        };
        let mut history = after_setup(&rules);
        assert_eq!(history.repetitions(), 1);
        assert_eq!(history.turns_after_setup(), 0);
        let after_setup_hash = history.position().hash();
        for played in 1..=1000u32 {
            history.play(&rules, &[]).unwrap();
            // Passing alternates between two positions.
            assert_eq!(history.repetitions(), played / 2 + 1);
            assert_eq!(history.turns_after_setup(), played);
        }
        assert_eq!(history.occurrences(after_setup_hash), 501);
        assert_eq!(history.turns().len(), 1002);
        assert_eq!(history.earlier_hashes().len(), 1002);
        assert_eq!(history.earlier_hashes()[2], after_setup_hash);
        // Exactly two distinct positions after setup, plus the two setup ones.
        assert_eq!(history.counts.len(), 4);
    }

    #[test]
    fn status_follows_the_rules_value() {
        let mut history = after_setup(&Rules::STANDARD);
        for _ in 0..4 {
            history.play(&Rules::STANDARD, &[]).unwrap();
        }
        assert_eq!(
            history.status(&Rules::STANDARD),
            GameStatus::Ongoing {
                repetitions: 3,
                claimable: true
            }
        );
        assert_eq!(
            history.claim(&Rules::STANDARD),
            Some(GameResult::draw(EndReason::RepetitionClaim))
        );
        let automatic = Rules {
            repetition: Repetition::Automatic(3),
            ..Rules::STANDARD
        };
        assert_eq!(
            history.status(&automatic),
            GameStatus::Over(GameResult::draw(EndReason::Repetition))
        );
        assert_eq!(history.claim(&automatic), None);
        assert_eq!(
            history.clone().play(&automatic, &[]),
            Err(PlayError::GameOver(GameResult::draw(EndReason::Repetition)))
        );
        let limited = Rules {
            repetition: Repetition::Off,
            max_turns: Some(4),
            ..Rules::STANDARD
        };
        assert_eq!(
            history.status(&limited),
            GameStatus::Over(GameResult::draw(EndReason::TurnLimit))
        );
        assert_eq!(
            history.status(&Rules::SDG),
            GameStatus::Ongoing {
                repetitions: 3,
                claimable: false
            }
        );
    }

    #[test]
    fn repetition_rules_read_back() {
        for repetition in [
            Repetition::Off,
            Repetition::Claim(3),
            Repetition::Automatic(5),
        ] {
            assert_eq!(
                parse_repetition(&repetition_text(repetition)),
                Some(repetition)
            );
        }
        assert_eq!(parse_repetition("AUTO@2"), Some(Repetition::Automatic(2)));
        for bad in ["claim@1", "auto@", "sometimes@3", "3", ""] {
            assert_eq!(parse_repetition(bad), None, "{bad}");
        }
    }

    #[test]
    fn bad_turns_leave_the_history_unchanged() {
        let rules = Rules::STANDARD;
        let mut history = after_setup(&rules);
        let before = history.position().hash();
        let build_large = Action::Build {
            system: 0,
            piece: Piece::new(Colour::Green, 3).unwrap(),
        };
        assert!(matches!(
            history.play(&rules, &[build_large]),
            Err(PlayError::Illegal { index: 1, .. })
        ));
        assert_eq!(history.position().hash(), before);
        assert_eq!(history.turns().len(), 2);
        assert_eq!(History::new(Position::start()).unwrap().repetitions(), 1);
        let mut mid_turn = *history.position();
        mid_turn.try_apply(&rules, Action::Pass).unwrap();
        assert_eq!(History::new(mid_turn).unwrap_err(), MidTurn);
    }

    #[test]
    fn elimination_ends_the_game_first() {
        let set = |pieces: &[(Colour, u8)]| {
            let mut set = PieceSet::EMPTY;
            for &(colour, size) in pieces {
                set.add(Piece::new(colour, size).unwrap());
            }
            set
        };
        // Player 0 has a large red in player 1's home, next to its lone small ship.
        let homes = [
            Some(System {
                stars: set(&[(Colour::Red, 1), (Colour::Blue, 3)]),
                ships: [set(&[(Colour::Green, 3)]), PieceSet::EMPTY],
            }),
            Some(System {
                stars: set(&[(Colour::Yellow, 2), (Colour::Blue, 2)]),
                ships: [set(&[(Colour::Red, 3)]), set(&[(Colour::Green, 1)])],
            }),
        ];
        let position =
            Position::from_parts(homes, [true, true], &[], Player::First, TurnState::Start)
                .unwrap();
        // A turn limit of 0 would end the game at once, but it is not played yet.
        let rules = Rules {
            max_turns: Some(1),
            ..Rules::STANDARD
        };
        let mut history = History::new(position).unwrap();
        let capture = Action::Capture {
            system: 1,
            ship: Piece::new(Colour::Green, 1).unwrap(),
        };
        let outcome = history.play(&rules, &[capture]).unwrap();
        assert_eq!(outcome, Outcome::Win(Player::First));
        // Both the elimination and the turn limit hold: elimination is the result.
        assert_eq!(
            history.status(&rules),
            GameStatus::Over(GameResult {
                outcome: Outcome::Win(Player::First),
                reason: EndReason::Elimination
            })
        );
        assert!(matches!(
            history.play(&rules, &[]),
            Err(PlayError::GameOver(GameResult {
                reason: EndReason::Elimination,
                ..
            }))
        ));
    }
}
