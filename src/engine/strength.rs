//! Playing strength for human opponents: the `UCI_LimitStrength` and
//! `UCI_Elo` options. A weaker engine should still play like a person,
//! only worse: it looks at fewer positions (a node budget per turn, so it
//! also stops growing with thinking time) and chooses among the turns it
//! found good, with a preference for the best that shrinks as the level
//! falls. It never plays a turn that lets the opponent win at once when the
//! search had avoided that, never passes over a win in one (the search
//! decides those before the tree), and never picks a turn the search
//! proved lost: random blunders of a kind no person makes.
//!
//! The levels were calibrated by matches (benches/README.md, "Playing strength"):
//! each level against the full engine at a fixed node count, the full
//! engine at those node counts against each other, and some levels against
//! a stronger one; a level's Elo is the maximum-likelihood fit of all those
//! games, with the full engine at 1000 nodes a turn at [`ANCHOR_ELO`].

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use std::sync::Arc;

use crate::rules::{Outcome, Position, Rules};
use crate::search::{
    Decision, Evaluation, Proof, SearchOptions, SearchResult, Solver, ValueNetwork,
};

/// The Elo given to the full engine at [`ANCHOR_NODES`] nodes a turn, the
/// fixed point of the scale.
pub const ANCHOR_ELO: i64 = 2000;
/// The node count of the full engine that the scale is measured against.
pub const ANCHOR_NODES: u64 = 1000;

/// The exploration constants (`cpuct`, `cpuct_intra_turn`) the levels
/// were calibrated with. A limited engine searches with them, whatever the
/// defaults become, so that the calibration table stays true: with the
/// lower defaults the search's choice is sharper, and the same node budget
/// and temperature would play stronger than the level says.
pub const CALIBRATED_EXPLORATION: (f32, f32) = (1.5, 1.0);

/// The leaf evaluation the levels were calibrated with: the hand-weighted
/// one. A limited engine searches with it whatever `Eval` says, for the
/// same reason as [`CALIBRATED_EXPLORATION`]: the learned value's
/// candidate values are spread differently, so the same temperatures
/// would sample another set of turns (at a level of 100 nodes from the
/// start position it kept the search's turn in 8 seeds of 8).
pub const CALIBRATED_EVALUATION: Evaluation = Evaluation::Hand;

/// The draw contempt (`contempt`) the levels were calibrated with: none
/// (they were calibrated without it). A limited engine searches with it for the
/// same reason as [`CALIBRATED_EXPLORATION`]: weak levels often draw each
/// other by repetition, and contempt changes how often.
pub const CALIBRATED_CONTEMPT: f32 = 0.0;

/// The capture-exposure priors (`prior_exposed`, `prior_escape`) the levels
/// were calibrated with: none (they were calibrated without them). A limited engine
/// searches with them for the same reason as [`CALIBRATED_EXPLORATION`].
pub const CALIBRATED_EXPOSURE_PRIORS: (f32, f32) = (0.0, 0.0);

/// The options a limited engine searches with: `options`, with enough
/// candidates reported to choose among ([`SAMPLED_CANDIDATES`]), no tree
/// carried over from earlier turns, and the tunables and evaluation the
/// levels were calibrated with (`network` for a learned one).
pub fn calibrated_options(
    mut options: SearchOptions,
    network: &Arc<ValueNetwork>,
) -> SearchOptions {
    options.multi_pv = options.multi_pv.max(SAMPLED_CANDIDATES);
    options.tree_reuse = false;
    let (cpuct, intra_turn) = CALIBRATED_EXPLORATION;
    let tunables = &mut options.tunables;
    // Both are inside their ranges, so neither can fail.
    let _ = tunables.set("cpuct", cpuct);
    let _ = tunables.set("cpuct_intra_turn", intra_turn);
    let _ = tunables.set("contempt", CALIBRATED_CONTEMPT);
    let (exposed, escape) = CALIBRATED_EXPOSURE_PRIORS;
    let _ = tunables.set("prior_exposed", exposed);
    let _ = tunables.set("prior_escape", escape);
    match CALIBRATED_EVALUATION {
        Evaluation::Hand => tunables.set_network(None),
        Evaluation::Learned => tunables.set_network(Some(network.clone())),
    }
    options
}

/// One calibrated level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// Its measured strength.
    pub elo: i64,
    /// Iterations per turn at most.
    pub nodes: u64,
    /// How far below the best a turn's value may be and still be chosen,
    /// as the softmax temperature (in value units, -1 to 1) of the choice;
    /// 0 plays the search's turn.
    pub temperature: f32,
}

/// The levels, weakest first, with the Elo each measured (see the module
/// documentation and the README's calibration table). The top level is
/// the full engine at [`ANCHOR_NODES`] (it scored 46-44-38 against it),
/// so it sits at [`ANCHOR_ELO`]. There is no level of 16 nodes: it
/// measured the same as the one of 8 (1160 and 1167, each ±120).
pub const LEVELS: [Level; 6] = [
    Level {
        elo: 1160,
        nodes: 8,
        temperature: 0.12,
    },
    Level {
        elo: 1260,
        nodes: 40,
        temperature: 0.06,
    },
    Level {
        elo: 1350,
        nodes: 100,
        temperature: 0.04,
    },
    Level {
        elo: 1630,
        nodes: 250,
        temperature: 0.02,
    },
    Level {
        elo: 1750,
        nodes: 500,
        temperature: 0.01,
    },
    Level {
        elo: ANCHOR_ELO,
        nodes: ANCHOR_NODES,
        temperature: 0.0,
    },
];

/// The weakest `UCI_Elo`.
pub const MIN_ELO: i64 = LEVELS[0].elo;
/// The strongest `UCI_Elo` (the anchor).
pub const MAX_ELO: i64 = LEVELS[LEVELS.len() - 1].elo;
/// The default `UCI_Elo`: the middle of the scale.
pub const DEFAULT_ELO: i64 = 1500;

/// Candidate turns a limited engine chooses among (the search reports
/// this many to it, whatever `MultiPV` shows).
pub const SAMPLED_CANDIDATES: usize = 8;

/// How many temperatures below the best a candidate may be at most.
const MARGIN_TEMPERATURES: f32 = 3.0;

/// The level for an Elo (clamped to the scale), interpolated between the
/// two nearest calibrated levels: nodes geometrically, the temperature
/// linearly.
pub fn level_for(elo: i64) -> Level {
    let elo = elo.clamp(MIN_ELO, MAX_ELO);
    let upper = LEVELS
        .iter()
        .position(|level| level.elo >= elo)
        .unwrap_or(LEVELS.len() - 1);
    if upper == 0 {
        return LEVELS[0];
    }
    let (low, high) = (LEVELS[upper - 1], LEVELS[upper]);
    let fraction = (elo - low.elo) as f64 / (high.elo - low.elo).max(1) as f64;
    let nodes = (low.nodes as f64).ln() * (1.0 - fraction) + (high.nodes as f64).ln() * fraction;
    Level {
        elo,
        nodes: nodes.exp().round().max(1.0) as u64,
        temperature: low.temperature + (high.temperature - low.temperature) * fraction as f32,
    }
}

/// Replaces the search's turn by one drawn among its good candidates, with
/// weights `exp((value - best) / temperature)`, from a generator seeded by
/// `seed` and the position (so a fixed seed and node count give the same
/// game). Only a tree search's free choice is replaced (not a win in one,
/// a forced defence or the book), and only by a candidate that the search
/// has not proven lost, is within three temperatures of the best, and
/// leaves the opponent no win at once. Marks a sampled result
/// [`Decision::LimitedStrength`].
pub fn sample_turn(
    result: &mut SearchResult,
    position: &Position,
    rules: &Rules,
    level: &Level,
    seed: u64,
) {
    if result.decision != Decision::Search || level.temperature <= 0.0 {
        return;
    }
    let best = result.value;
    let lowest = best - MARGIN_TEMPERATURES * level.temperature;
    let mut solver = Solver::default();
    let eligible: Vec<usize> = result
        .info
        .candidates
        .iter()
        .enumerate()
        .filter(|(_, candidate)| candidate.proof != Some(Proof::Loss) && candidate.value >= lowest)
        .filter(|(_, candidate)| is_safe(&candidate.turn, position, rules, &mut solver))
        .map(|(index, _)| index)
        .collect();
    if eligible.len() < 2 {
        return;
    }
    let weights: Vec<f64> = eligible
        .iter()
        .map(|&index| {
            let value = result.info.candidates[index].value.min(best);
            f64::from((value - best) / level.temperature).exp()
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut rng = SmallRng::seed_from_u64(seed ^ position.hash() ^ 0x57E1_1A7E_D0E5_5EED);
    let mut draw = rng.random::<f64>() * total;
    let mut chosen = eligible[eligible.len() - 1];
    for (&index, weight) in eligible.iter().zip(&weights) {
        if draw < *weight {
            chosen = index;
            break;
        }
        draw -= weight;
    }
    let candidate = &result.info.candidates[chosen];
    let (turn, value) = (candidate.turn.clone(), candidate.value);
    result.info.report_instead(&turn, value);
    result.best_turn = turn;
    result.value = value;
    result.decision = Decision::LimitedStrength;
}

/// Whether a turn plays, and leaves the opponent no win at once.
fn is_safe(
    turn: &[crate::rules::Action],
    position: &Position,
    rules: &Rules,
    solver: &mut Solver,
) -> bool {
    let mut after = *position;
    if !turn
        .iter()
        .all(|&action| after.try_apply(rules, action).is_ok())
    {
        return false;
    }
    match after.end_turn(rules) {
        Ok(Outcome::Ongoing) => !solver.can_win(&after, rules),
        Ok(Outcome::Win(winner)) => winner == position.side_to_move(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_interpolate_and_clamp() {
        assert_eq!(level_for(0), LEVELS[0]);
        assert_eq!(level_for(10_000), LEVELS[LEVELS.len() - 1]);
        for level in LEVELS {
            assert_eq!(level_for(level.elo), level);
        }
        let between = level_for((LEVELS[1].elo + LEVELS[2].elo) / 2);
        assert!(between.nodes > LEVELS[1].nodes && between.nodes < LEVELS[2].nodes);
        assert!(between.temperature < LEVELS[1].temperature);
        assert!(LEVELS.windows(2).all(|pair| pair[0].elo < pair[1].elo
            && pair[0].nodes < pair[1].nodes
            && pair[0].temperature > pair[1].temperature));
    }
}
