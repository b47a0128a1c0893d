//! How well an evaluation predicts real games: `supernova accuracy`.
//!
//! A quick check of a network that needs no match: over the positions of
//! recorded games decided on the board, how often the value favours the
//! side that went on to win, and how surprised it is by the result. It
//! measures prediction, not play (a value can predict better and still
//! guide the search worse), so a network is matched before it ships.

use crate::record::GameRecord;
use crate::rules::{Outcome, Rules};
use crate::search::{evaluate, leaf_threat, Solver, Tunables};

/// How well an evaluation predicts real games: of the start-of-turn
/// positions (after the setup) of games decided on the board, the share
/// where the side the value favours went on to win, and the mean logistic
/// loss of the win probability against the result.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Accuracy {
    /// Positions judged.
    pub positions: usize,
    /// Positions where the favoured side won (a value of exactly 0 counts half).
    pub right: f64,
    /// Sum of the logistic losses.
    pub loss: f64,
}

impl Accuracy {
    /// The share of positions predicted right.
    pub fn rate(&self) -> f64 {
        self.right / self.positions.max(1) as f64
    }

    /// The mean logistic loss.
    pub fn mean_loss(&self) -> f64 {
        self.loss / self.positions.max(1) as f64
    }

    fn add(&mut self, value: f32, won: bool) {
        self.positions += 1;
        let signed = if won { value } else { -value };
        self.right += if signed > 0.0 {
            1.0
        } else if signed == 0.0 {
            0.5
        } else {
            0.0
        };
        let probability = f64::from((signed + 1.0) / 2.0).clamp(1e-6, 1.0 - 1e-6);
        self.loss -= probability.ln();
    }
}

/// Scores each evaluation (a `Tunables` with or without a network) on the
/// positions of `records` that were decided on the board under `rules`.
/// Returns the accuracy of each, in order, and the games used.
pub fn value_accuracy(
    records: &[&GameRecord],
    rules: &Rules,
    evaluations: &[Tunables],
) -> (Vec<Accuracy>, usize) {
    let mut totals = vec![Accuracy::default(); evaluations.len()];
    let mut games = 0;
    let mut solver = Solver::default();
    for record in records {
        if record.unsupported().is_some() {
            continue;
        }
        let walk = record.walk(rules);
        let Outcome::Win(winner) = walk.outcome else {
            continue;
        };
        if walk.illegal.is_some() {
            continue;
        }
        games += 1;
        let rules = record.rules(rules).unwrap_or(*rules);
        for turn in &walk.turns {
            let position = &turn.board.position;
            if position.in_setup() {
                continue;
            }
            let threat = leaf_threat(&mut solver, position, &rules);
            let won = position.side_to_move() == winner;
            for (total, tunables) in totals.iter_mut().zip(evaluations) {
                total.add(evaluate(position, tunables, threat), won);
            }
        }
    }
    (totals, games)
}
