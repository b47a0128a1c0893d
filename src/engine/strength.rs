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
//! A rule against leaving material to a one-turn shot more often than
//! people do. A turn's exposure ([`exposure`]) is what the opponent's best
//! single reply takes from it net, over every distinct legal reply (the
//! exact judgement of [`crate::search::material`]); a candidate hangs
//! material when its exposure exceeds the least exposure among the turns
//! the level chooses from by at least [`HANG`] (more than a small ship
//! net). On each turn a level lets itself hang material with its
//! [`Level::hang_keep`] chance; otherwise the hanging candidates leave the
//! draw, the search's own turn included (at 8 to 100 nodes it often hangs
//! material itself), and when even the least exposed candidate loses at
//! least [`HANG`] the level plays instead the best-looking safe legal
//! turn that exposes [`HANG`] less, judging the [`ALTERNATIVES`] best by
//! the shot player's static score (a person who sees the shot plays a sound
//! turn that avoids it).
//! There is always a turn to play, and the guarantees above hold: a
//! replacement is never proven lost and never lets the opponent win at once.
//!
//! Measured with the measure of tests/levels.rs (benches/README.md,
//! "Blunders: people and levels"): people in the SDG records hang material
//! on 5.4 turns in 100 (a large ship on 3.1). Without the rule the weakest
//! level hung on 23.8, and at 8 nodes its candidates (one to four) rarely
//! held a quieter turn, so filtering them alone did not help; the quiet
//! turn below is what brings it down. With the levels' values (`hang_keep`
//! 0.3 for cadet down to 0.1) cadet hangs on 12.2 turns in 100 (large 4.7),
//! ensign on 5.7 (1.9), lieutenant on 5.9 (3.0), commander on 4.8 (2.3)
//! and captain on 5.3 (2.5), against the full engine at 30, 100 and 300
//! nodes on 17.5, 14.3 and 12.4. The levels' Elos are those of a
//! calibration with the rule in force. Judging turns costs time, so the
//! quiet turn's search stops at 250 ms (`ALTERNATIVES_TIME`): in the
//! calibration's games a cadet turn took 0.004 s on average (at most
//! 0.33 s), an ensign turn 0.020 s (0.86 s), a lieutenant turn 0.018 s
//! (0.61 s).
//!
//! The levels were calibrated by matches (benches/README.md, "Playing strength"):
//! each level against the full engine at a fixed node count, the full
//! engine at those node counts against each other, and some levels against
//! a stronger one; a level's Elo is the maximum-likelihood fit of all those
//! games, with the full engine at 1000 nodes a turn at [`ANCHOR_ELO`].

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::rules::{Action, Outcome, Position, Rules, TurnEnumerator};
use crate::search::material::{material, played, worst_reply, SAFE};
use crate::search::shots::shot_score;
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

/// The root's shot guard (`shot_guard`) the levels were calibrated with:
/// off. A limited engine searches without it for the same reason as
/// [`CALIBRATED_EXPLORATION`]; its own rule against hanging material
/// ([`Level::hang_keep`]) is measured against people instead.
pub const CALIBRATED_SHOT_GUARD: f32 = 0.0;

/// The stretch far ahead (`stretch_above`) the levels were calibrated
/// with: off (1). A limited engine searches without it for the same reason
/// as [`CALIBRATED_EXPLORATION`].
pub const CALIBRATED_STRETCH: f32 = 1.0;

/// How much more than the least exposed turn's a candidate's exposure must
/// be for it to hang material: more than a small ship net
/// ([`crate::search::material::SAFE`]).
pub const HANG: f32 = SAFE;

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
    let _ = tunables.set("shot_guard", CALIBRATED_SHOT_GUARD);
    let _ = tunables.set("stretch_above", CALIBRATED_STRETCH);
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
    /// The chance, drawn once a turn, that the level may hang material on
    /// this turn (see the module documentation): 0 never hangs material
    /// when a candidate or one of the [`ALTERNATIVES`] best-scored legal turns
    /// avoids it, 1 ignores the rule. Weaker levels hang more, as weaker
    /// people do.
    pub hang_keep: f32,
}

/// The levels, weakest first, with the Elo each measured with its
/// `hang_keep` in force (see the module documentation and the README's
/// calibration table). The top level is the full engine at
/// [`ANCHOR_NODES`] (it scored 54-48-26 against it), so it sits at
/// [`ANCHOR_ELO`]. There is no level of 16 nodes: before the rule against
/// hanging material it measured the same as the one of 8 (1160 and 1167,
/// each ±120 on that calibration's scale).
pub const LEVELS: [Level; 6] = [
    Level {
        elo: 870,
        nodes: 8,
        temperature: 0.12,
        hang_keep: 0.3,
    },
    Level {
        elo: 1070,
        nodes: 40,
        temperature: 0.06,
        hang_keep: 0.2,
    },
    Level {
        elo: 1430,
        nodes: 100,
        temperature: 0.04,
        hang_keep: 0.15,
    },
    Level {
        elo: 1680,
        nodes: 250,
        temperature: 0.02,
        hang_keep: 0.1,
    },
    Level {
        elo: 1840,
        nodes: 500,
        temperature: 0.01,
        hang_keep: 0.1,
    },
    Level {
        elo: ANCHOR_ELO,
        nodes: ANCHOR_NODES,
        temperature: 0.0,
        // It plays the search's own turn (temperature 0), so this acts only
        // on the levels interpolated between it and the one below.
        hang_keep: 0.1,
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
    if upper == 0 || LEVELS[upper].elo == elo {
        return LEVELS[upper];
    }
    let (low, high) = (LEVELS[upper - 1], LEVELS[upper]);
    let fraction = (elo - low.elo) as f64 / (high.elo - low.elo).max(1) as f64;
    let nodes = (low.nodes as f64).ln() * (1.0 - fraction) + (high.nodes as f64).ln() * fraction;
    Level {
        elo,
        nodes: nodes.exp().round().max(1.0) as u64,
        temperature: low.temperature + (high.temperature - low.temperature) * fraction as f32,
        hang_keep: low.hang_keep + (high.hang_keep - low.hang_keep) * fraction as f32,
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
    let mut rng = SmallRng::seed_from_u64(seed ^ position.hash() ^ 0x57E1_1A7E_D0E5_5EED);
    let eligible = if level.hang_keep < 1.0 && rng.random::<f32>() >= level.hang_keep {
        let kept = match without_hanging(result, position, rules, eligible, &mut solver) {
            Pool::Candidates(kept) => kept,
            Pool::Alternative(turn) => {
                let value = result
                    .info
                    .candidates
                    .iter()
                    .map(|candidate| candidate.value)
                    .fold(best, f32::min);
                play_instead(result, turn, value);
                return;
            }
        };
        // The rule may have set the search's own turn aside, leaving one
        // other candidate to play.
        let only_the_search_turn =
            kept.len() == 1 && result.info.candidates[kept[0]].turn == result.best_turn;
        if kept.is_empty() || only_the_search_turn {
            return;
        }
        kept
    } else if eligible.len() < 2 {
        // Without the rule a single candidate is the search's own choice to
        // keep, as the levels were calibrated.
        return;
    } else {
        eligible
    };
    let weights: Vec<f64> = eligible
        .iter()
        .map(|&index| {
            let value = result.info.candidates[index].value.min(best);
            f64::from((value - best) / level.temperature).exp()
        })
        .collect();
    let total: f64 = weights.iter().sum();
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
    play_instead(result, turn, value);
}

/// Makes `turn`, valued `value`, the result's turn, chosen by the level.
fn play_instead(result: &mut SearchResult, turn: Vec<Action>, value: f32) {
    result.info.report_instead(&turn, value);
    result.best_turn = turn;
    result.value = value;
    result.decision = Decision::LimitedStrength;
}

/// What a level may play once the turns that hang material are set aside.
enum Pool {
    /// These of the eligible candidates (indices into the result's).
    Candidates(Vec<usize>),
    /// No candidate is safe enough: this legal turn, which exposes at
    /// least [`HANG`] less than the least exposed candidate.
    Alternative(Vec<Action>),
}

/// `eligible` (indices into the result's candidates) less those that hang
/// material. The search's own turn is judged like the others, since at a
/// few dozen nodes it often hangs material itself. When even the least
/// exposed candidate loses at least [`HANG`] net, the level looks beyond
/// the candidates: the best-scored safe legal turn that exposes at least
/// [`HANG`] less ([`quieter_turn`]; a person who sees the shot plays a sound
/// turn that avoids it). Something always remains.
fn without_hanging(
    result: &SearchResult,
    position: &Position,
    rules: &Rules,
    eligible: Vec<usize>,
    solver: &mut Solver,
) -> Pool {
    if eligible.is_empty() {
        return Pool::Candidates(eligible);
    }
    let candidates = &result.info.candidates;
    let exposures: Vec<f32> = eligible
        .iter()
        .map(|&index| exposure(position, rules, &candidates[index].turn).unwrap_or(f32::INFINITY))
        .collect();
    let least = exposures.iter().copied().fold(f32::INFINITY, f32::min);
    if least >= HANG {
        if let Some(turn) = quieter_turn(position, rules, least - HANG, solver) {
            return Pool::Alternative(turn);
        }
    }
    Pool::Candidates(
        eligible
            .iter()
            .zip(&exposures)
            .filter(|&(_, &exposed)| exposed - least < HANG)
            .map(|(&index, _)| index)
            .collect(),
    )
}

/// How many of the best-looking legal turns a level judges when every
/// candidate hangs: the turns are ranked by the shot player's static score
/// (`search::shots::shot_score`: material, the opponent's best
/// single shot next turn, home defence), as a person who has seen the shot
/// looks first at the turns that look sound, and each judged one costs a
/// listing of every reply.
pub const ALTERNATIVES: usize = 8;

/// How long [`quieter_turn`] may list turns and judge them, so that a
/// position with hundreds of thousands of turns or replies does not hold
/// the level's answer (without it, 9 of 2,432 cadet turns took over a
/// second, one 8.5 s).
const ALTERNATIVES_TIME: Duration = Duration::from_millis(250);
/// Legal turns [`quieter_turn`] lists at most: a count as well as a time,
/// so that where the count ends the listing before the time does, a level
/// with a fixed seed plays the same turn however busy the machine is (a
/// turn and its score take about 0.6 µs, so the count is some 120 ms on a
/// quiet machine).
const ALTERNATIVES_LISTED: usize = 200_000;

/// The best-scored of `position`'s legal turns (by the shot player's
/// score, of those listed by [`ALTERNATIVES_TIME`]) that is safe and
/// exposes at most `bound`, judging the [`ALTERNATIVES`] best-scored.
/// Ranking by the score rather than taking the least exposed keeps the
/// replacement a sound turn: the least exposed of arbitrary turns was
/// often a slow one, and the levels lost games to it.
fn quieter_turn(
    position: &Position,
    rules: &Rules,
    bound: f32,
    solver: &mut Solver,
) -> Option<Vec<Action>> {
    let mover = position.side_to_move();
    let deadline = Instant::now() + ALTERNATIVES_TIME;
    // The best-scored so far, best first; among equal scores the one
    // listed first stays ahead, so that a fixed seed plays the same game.
    let mut best: Vec<(f32, Vec<Action>)> = Vec::with_capacity(ALTERNATIVES + 1);
    let mut listed = 0;
    TurnEnumerator::default().for_each_turn_while(
        position,
        rules,
        Some(deadline),
        |actions, result, outcome| {
            listed += 1;
            if outcome == Outcome::Ongoing {
                let score = shot_score(result, mover);
                let full = best.len() == ALTERNATIVES;
                if !full || best.last().is_some_and(|(last, _)| score > *last) {
                    let at = best.partition_point(|(other, _)| *other >= score);
                    best.insert(at, (score, actions.to_vec()));
                    best.truncate(ALTERNATIVES);
                }
            }
            listed < ALTERNATIVES_LISTED
        },
    );
    for (_, turn) in best {
        if Instant::now() > deadline {
            break;
        }
        let Some(exposed) = exposure(position, rules, &turn) else {
            continue;
        };
        if exposed <= bound && is_safe(&turn, position, rules, solver) {
            return Some(turn);
        }
    }
    None
}

/// What `turn` from `position` and the opponent's best single reply to it
/// (see [`crate::search::material::worst_reply`]) lose the mover in
/// material net, so that a trade (a capture recaptured) is not a loss:
/// `None` when the turn is illegal, 0 when it ends the game in a draw,
/// minus [`crate::search::material::ELIMINATED`] when it wins. The measure
/// of hanging material, for the levels and for people's games alike.
pub fn exposure(position: &Position, rules: &Rules, turn: &[Action]) -> Option<f32> {
    let mover = position.side_to_move();
    let balance = |board: &Position| material(board, mover) - material(board, mover.opponent());
    if let Some(after) = played(position, rules, turn) {
        return Some(balance(position) - balance(&after) + worst_reply(&after, rules).0);
    }
    let mut after = *position;
    for &action in turn {
        after.try_apply(rules, action).ok()?;
    }
    match after.end_turn(rules).ok()? {
        Outcome::Win(winner) if winner == position.side_to_move() => {
            Some(-crate::search::material::ELIMINATED)
        }
        Outcome::Win(_) => Some(crate::search::material::ELIMINATED),
        _ => Some(0.0),
    }
}

/// Whether a turn plays, and leaves the opponent no win at once.
fn is_safe(turn: &[Action], position: &Position, rules: &Rules, solver: &mut Solver) -> bool {
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
    use crate::rules::{Colour, Piece};
    use crate::search::testing::position;
    use crate::search::{Candidate, SearchLimits, Searcher};
    use std::sync::atomic::AtomicBool;

    /// A middle game (cli rules) where player 0, to move, has R3, B3 and
    /// Y2 at a system next to player 1's home, whose R3 there would
    /// capture a large ship moved in.
    fn beside_their_home() -> Position {
        let systems = [
            ("y2b1", "r2g1g3", ""),
            ("g3b1", "", "r3y1"),
            ("b3", "", "r2y3"),
            ("g1", "", "r1y3"),
            ("g2", "r1r3y2b1b2b3", ""),
            ("g3", "r2y3", ""),
        ];
        position(&systems, 0)
    }

    /// [`beside_their_home`], a search of 200 nodes from it, its safe turn
    /// and a turn that hangs a large ship (checked to).
    fn a_safe_and_a_hanging_turn() -> (Position, SearchResult, Vec<Action>, Vec<Action>) {
        let position = beside_their_home();
        let rules = Rules::CLI;
        let ready = position
            .occupied_slots()
            .find(|&slot| position.system(slot).ships[0].len() == 6)
            .unwrap();
        let hanging = vec![Action::Move {
            from: ready,
            to: 1,
            ship: Piece::new(Colour::Blue, 3).unwrap(),
        }];
        let options = SearchOptions::default();
        let limits = SearchLimits {
            nodes: Some(200),
            ..SearchLimits::default()
        };
        let result =
            Searcher::new(options).search(&position, &[], &limits, &AtomicBool::new(false), |_| {});
        assert_eq!(result.decision, Decision::Search);
        let safe = result.best_turn.clone();
        let (safe_exposure, hanging_exposure) = (
            exposure(&position, &rules, &safe).unwrap(),
            exposure(&position, &rules, &hanging).unwrap(),
        );
        assert!(
            hanging_exposure - safe_exposure >= HANG.max(5.0),
            "{safe_exposure} {hanging_exposure}"
        );
        (position, result, safe, hanging)
    }

    /// A level whose draw is given `candidates` (turn, value above the
    /// search's) plays the hanging turn on how many of 32 seeds.
    fn hangs(
        result: &SearchResult,
        position: &Position,
        candidates: &[(&[Action], f32)],
        hanging: &[Action],
        hang_keep: f32,
    ) -> usize {
        let mut result = result.clone();
        let value = result.value;
        result.info.candidates = candidates
            .iter()
            .map(|&(turn, above)| Candidate {
                turn: turn.to_vec(),
                visits: 100,
                value: value + above,
                proof: None,
                line: Vec::new(),
            })
            .collect();
        let level = Level {
            elo: 1000,
            nodes: 200,
            temperature: 0.2,
            hang_keep,
        };
        (0..32u64)
            .filter(|&seed| {
                let mut sampled = result.clone();
                sample_turn(&mut sampled, position, &Rules::CLI, &level, seed);
                sampled.best_turn == hanging
            })
            .count()
    }

    #[test]
    fn a_level_does_not_hang_a_large_ship_that_its_draw_would_pick() {
        let (position, result, safe, hanging) = a_safe_and_a_hanging_turn();
        // The draw sees the hanging turn valued above the search's turn.
        let candidates: [(&[Action], f32); 2] = [(&safe, 0.0), (&hanging, 0.1)];
        let played = |keep| hangs(&result, &position, &candidates, &hanging, keep);
        assert_eq!(played(0.0), 0);
        assert!(played(1.0) > 16, "{}", played(1.0));
        let half = played(0.5);
        assert!(half > 0 && half < played(1.0), "{half}");
    }

    #[test]
    fn a_level_whose_search_turn_hangs_a_large_ship_plays_a_safe_candidate() {
        let (position, mut result, safe, hanging) = a_safe_and_a_hanging_turn();
        // The search itself chose the hanging turn, the safe one a little
        // below it.
        result.info.report_instead(&hanging, result.value);
        result.best_turn = hanging.clone();
        let candidates: [(&[Action], f32); 2] = [(&hanging, 0.0), (&safe, -0.05)];
        assert_eq!(hangs(&result, &position, &candidates, &hanging, 0.0), 0);
        // Without the rule the softmax plays it about half the time.
        let kept = hangs(&result, &position, &candidates, &hanging, 1.0);
        assert!(kept > 8, "{kept}");
    }

    #[test]
    fn a_level_with_only_hanging_candidates_plays_a_quieter_legal_turn() {
        let (position, mut result, _, hanging) = a_safe_and_a_hanging_turn();
        result.info.report_instead(&hanging, result.value);
        result.best_turn = hanging.clone();
        result.info.candidates.truncate(1);
        let rules = Rules::CLI;
        let level = Level {
            elo: 1000,
            nodes: 8,
            temperature: 0.2,
            hang_keep: 0.0,
        };
        let hung = exposure(&position, &rules, &hanging).unwrap();
        for seed in 0..4 {
            let mut sampled = result.clone();
            sample_turn(&mut sampled, &position, &rules, &level, seed);
            assert_eq!(sampled.decision, Decision::LimitedStrength);
            let played = exposure(&position, &rules, &sampled.best_turn).unwrap();
            assert!(hung - played >= HANG, "{hung} {played}");
            assert!(is_safe(
                &sampled.best_turn,
                &position,
                &rules,
                &mut Solver::default()
            ));
            assert_eq!(sampled.info.candidates[0].turn, sampled.best_turn);
            // A sound-looking turn: among the best by the shot player's
            // score, not merely the least exposed of any.
            let mover = position.side_to_move();
            let mut scores = Vec::new();
            TurnEnumerator::default().for_each_turn(&position, &rules, |_, after, outcome| {
                if outcome == Outcome::Ongoing {
                    scores.push(shot_score(after, mover));
                }
            });
            scores.sort_by(|first, second| second.total_cmp(first));
            let after =
                crate::search::material::played(&position, &rules, &sampled.best_turn).unwrap();
            assert!(shot_score(&after, mover) >= scores[ALTERNATIVES - 1]);
        }
    }

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
            && pair[0].temperature > pair[1].temperature
            && pair[0].hang_keep >= pair[1].hang_keep));
    }
}
