//! Command-line tools built on the engine and the protocol: the match
//! runner, self-play, position analysis, game annotation and terminal play.
//!
//! [`cli`] holds the command line's arguments and runs each subcommand.
//! Tools write to a writer (and `play` reads from a reader) handed over by
//! `main.rs`, so they never touch stdin or stdout themselves and tests can
//! drive them in memory.

pub mod analyse;
pub mod bench;
pub mod cli;
pub mod gui;
pub mod handicaps;
pub mod levels;
pub mod match_runner;
/// What one reply takes (the exact material judgement of a turn), which
/// the search's shot guard uses and the tools (puzzles, the one-turn-shots
/// suite) judge turns by; it lives in the search, below the tools.
pub mod material {
    pub use crate::search::material::*;
}
pub mod multi_match;
pub mod multi_play;
pub mod openings;
pub mod play;
pub mod priors;
pub mod replay;
pub mod selfplay;
pub mod stats;
pub mod train;

use crate::rules::{GameResult, Outcome, Player};

/// How a game between two players ended, for the tools that referee whole
/// games (the match runner and self-play). Every ending the rules decide
/// comes from the rules layer's [`crate::rules::History`]; the other
/// variants are what the rules do not cover: a player who breaks the
/// protocol or returns an illegal turn, and a game the referee cannot go on
/// with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The rules ended the game (elimination, repetition, turn limit...).
    Result(GameResult),
    /// A player forfeited: an illegal or unparsable turn, a crash, silence
    /// past the time limit. The other player wins.
    Forfeit {
        /// The player who forfeited.
        loser: Player,
        /// What happened, in words, without the player's name.
        reason: String,
    },
    /// The referee could not go on (its own error, not a player's); the
    /// game counts as a draw.
    Aborted(String),
    /// The match runner ended a game the engines' own scores called lost
    /// (`supernova match --resign`). The other player wins.
    Adjudicated {
        /// The player whose engine reported the loss.
        loser: Player,
        /// Why, in words, without the player's name.
        reason: String,
    },
}

impl Ending {
    /// The result by seat: a win, or a draw.
    pub fn outcome(&self) -> Outcome {
        match self {
            Ending::Result(result) => result.outcome,
            Ending::Forfeit { loser, .. } | Ending::Adjudicated { loser, .. } => {
                Outcome::Win(loser.opponent())
            }
            Ending::Aborted(_) => Outcome::Draw,
        }
    }

    /// Player 0's points: 1 for a win, 0.5 for a draw, 0 for a loss.
    pub fn first_player_points(&self) -> f64 {
        match self.outcome() {
            Outcome::Win(Player::First) => 1.0,
            Outcome::Win(Player::Second) => 0.0,
            _ => 0.5,
        }
    }

    /// The score in the PGN style, from player 0's side: `1-0`, `0-1`, `1/2-1/2`.
    pub fn score(&self) -> &'static str {
        match self.outcome() {
            Outcome::Win(Player::First) => "1-0",
            Outcome::Win(Player::Second) => "0-1",
            _ => "1/2-1/2",
        }
    }

    /// Whether a failure decided the game (a forfeit or an abort), not
    /// the rules or an adjudication.
    pub fn is_forfeit(&self) -> bool {
        matches!(self, Ending::Forfeit { .. } | Ending::Aborted(_))
    }

    /// Why the game ended, in words, with the players' names: the reason's
    /// word for a rules result (`elimination`, `repetition`, ...), and the
    /// name of the player who forfeited before what they did.
    pub fn description(&self, names: [&str; 2]) -> String {
        match self {
            Ending::Result(result) => result.reason.word().to_string(),
            Ending::Forfeit { loser, reason } | Ending::Adjudicated { loser, reason } => {
                format!("{} {reason}", names[loser.index()])
            }
            Ending::Aborted(reason) => format!("referee error: {reason}"),
        }
    }
}
