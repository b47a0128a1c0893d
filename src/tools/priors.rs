//! `supernova priors`: the weights of the action priors fitted to the turns
//! people played.
//!
//! The tree grows a turn one action at a time and widens in prior order, so
//! the priors decide which actions are tried at all; on a small budget they
//! matter as much as the value. Each prior logit (`src/search/priors.rs`) is
//! linear in the prior tunables (`prior_capture`, `prior_build`, ...), so
//! the weights can be fitted by maximum likelihood: at every step of every
//! turn of the real games (each action in the order recorded, then the end
//! of the turn), the softmax over the legal actions should give the action
//! the player chose a high probability. The fit starts from the current
//! values and is pulled towards them (an L2 term), and reports the
//! log-likelihood and top-1 rate on the held-out games (every fifth by
//! number, as `train` holds them out) before and after. The printed
//! `name value` lines are what the tunables table's defaults take.

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;

use super::train::is_held_out;
use crate::record::{GameRecord, ReplayedTurn};
use crate::rules::{Position, Rules, TurnState};
use crate::search::{child_logits, visit_targets, Tunables};

/// The tunables the fit changes: every prior logit weight (not the
/// temperature, which only rescales them).
pub const FITTED: [&str; 16] = [
    "prior_capture",
    "prior_capture_home",
    "prior_catastrophe",
    "prior_build",
    "prior_trade",
    "prior_new_colour",
    "prior_move",
    "prior_attack_move",
    "prior_leave_home",
    "prior_give_catastrophe",
    "prior_sacrifice",
    "prior_pass",
    "prior_end_sacrifice",
    "prior_end_done",
    "prior_exposed",
    "prior_escape",
];

/// One decision: the children's logits as a constant plus a sparse linear
/// part in the fitted weights, and the target: the child a player chose
/// (weight 1), or the share of a search's visits each child got.
struct Step {
    /// Per child: (constant, range into `terms`).
    children: Vec<(f32, u32, u32)>,
    /// (weight index, coefficient) terms of all children.
    terms: Vec<(u8, f32)>,
    /// (child, weight) pairs, the weights summing to 1.
    targets: Vec<(usize, f64)>,
    held_out: bool,
}

/// The fit's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct PriorFit {
    /// The fitted value of each of [`FITTED`], in order.
    pub values: Vec<f32>,
    /// Decisions used for fitting, and held out.
    pub steps: (usize, usize),
    /// Mean log-likelihood of the chosen action on the held-out decisions,
    /// before and after.
    pub log_likelihood: (f64, f64),
    /// How often the chosen action had the highest prior, held out, before
    /// and after.
    pub top_one: (f64, f64),
}

impl PriorFit {
    /// Prints the fit as `supernova priors` does: a `#` line with the
    /// decisions used and the held-out measures before and after, then one
    /// `name value` line per fitted tunable, the form the tunables table's
    /// defaults take.
    ///
    /// # Errors
    /// Writing to `out` failed.
    pub fn write(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(
            out,
            "# {} decisions fitted, {} held out: log-likelihood {:.4} -> {:.4}, top-1 {:.1}% -> {:.1}%",
            self.steps.0,
            self.steps.1,
            self.log_likelihood.0,
            self.log_likelihood.1,
            100.0 * self.top_one.0,
            100.0 * self.top_one.1
        )?;
        for (name, value) in FITTED.iter().zip(&self.values) {
            writeln!(out, "{name} {value:.2}")?;
        }
        out.flush()
    }
}

/// Fits the prior weights to the turns of `records` (replayed under
/// `rules`), using at most `max_steps` decisions drawn with `seed`.
pub fn fit_priors(records: &[GameRecord], rules: &Rules, max_steps: usize, seed: u64) -> PriorFit {
    let start = Tunables::default();
    let mut decisions = Vec::new();
    for_each_turn(records, rules, |turn, held_out, rules| {
        let mut position = turn.board.position;
        for &action in &turn.actions {
            decisions.push((position, action.pack(), held_out, rules));
            if position.try_apply(&rules, action).is_err() {
                break;
            }
        }
        if position.turn_state() != TurnState::Start || turn.actions.is_empty() {
            decisions.push((position, 0, held_out, rules));
        }
    });
    let steps: Vec<Step> = seeded_sample(decisions, max_steps, seed)
        .par_iter()
        .filter_map(|(position, chosen, held_out, rules)| {
            step(position, rules, &start, &[(*chosen, 1)], *held_out)
        })
        .collect();
    fit(&steps, &start)
}

/// Calls `visit` with every turn after setup of the supported `records`,
/// replayed under their own rules (`rules` where a record names none),
/// whether its game is held out, and those rules.
fn for_each_turn(
    records: &[GameRecord],
    rules: &Rules,
    mut visit: impl FnMut(&ReplayedTurn, bool, Rules),
) {
    for record in records {
        if record.unsupported().is_some() {
            continue;
        }
        let held_out = is_held_out(record);
        let rules = record.rules(rules).unwrap_or(*rules);
        for turn in &record.walk(&rules).turns {
            if !turn.board.position.in_setup() {
                visit(turn, held_out, rules);
            }
        }
    }
}

/// At most `limit` of `items`, drawn with `seed`.
fn seeded_sample<T>(mut items: Vec<T>, limit: usize, seed: u64) -> Vec<T> {
    let mut rng = SmallRng::seed_from_u64(seed);
    items.shuffle(&mut rng);
    items.truncate(limit);
    items
}

/// Fits the prior weights to what the search itself prefers (policy
/// distillation): from `positions` start-of-turn positions drawn with
/// `seed` from `records`, a one-thread search of `iterations` each, and at
/// every node it visited at least `min_visits` times, the share of the
/// visits each child got is the target. Games held out as [`fit_priors`]
/// holds them out give the held-out decisions; "top-1" there is how often
/// the most visited child has the highest prior.
pub fn fit_priors_to_search(
    records: &[GameRecord],
    rules: &Rules,
    positions: usize,
    iterations: u64,
    min_visits: u32,
    seed: u64,
) -> PriorFit {
    let start = Tunables::default();
    let mut starts = Vec::new();
    for_each_turn(records, rules, |turn, held_out, rules| {
        let position = turn.board.position;
        if position.turn_state() == TurnState::Start {
            starts.push((position, held_out, rules));
        }
    });
    let steps: Vec<Step> = seeded_sample(starts, positions, seed)
        .par_iter()
        .flat_map_iter(|(position, held_out, rules)| {
            visit_targets(position, rules, &start, iterations, min_visits)
                .into_iter()
                .filter_map(|target| {
                    step(&target.position, rules, &start, &target.visits, *held_out)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    fit(&steps, &start)
}

/// Maximum likelihood (cross-entropy against the targets) from the current
/// weights, pulled towards them.
fn fit(steps: &[Step], start: &Tunables) -> PriorFit {
    let initial: Vec<f32> = FITTED
        .iter()
        .map(|name| start.get(name).unwrap_or_default())
        .collect();
    let (held, training): (Vec<&Step>, Vec<&Step>) = steps.iter().partition(|step| step.held_out);
    let (likelihood_before, top_before) = measure(&held, &initial);
    let mut values = initial.clone();
    let mut moments = vec![0.0f64; FITTED.len()];
    let mut squares = vec![0.0f64; FITTED.len()];
    const PULL: f64 = 0.002;
    for iteration in 1..=300 {
        let gradient = training
            .par_iter()
            .map(|step| gradient(step, &values))
            .reduce(
                || vec![0.0; FITTED.len()],
                |mut total, part| {
                    for (sum, value) in total.iter_mut().zip(part) {
                        *sum += value;
                    }
                    total
                },
            );
        let count = training.len().max(1) as f64;
        for index in 0..FITTED.len() {
            let grad =
                gradient[index] / count - 2.0 * PULL * f64::from(values[index] - initial[index]);
            moments[index] = 0.9 * moments[index] + 0.1 * grad;
            squares[index] = 0.999 * squares[index] + 0.001 * grad * grad;
            let moment = moments[index] / (1.0 - 0.9f64.powi(iteration));
            let square = squares[index] / (1.0 - 0.999f64.powi(iteration));
            values[index] += (0.03 * moment / (square.sqrt() + 1e-8)) as f32;
            if let Some((_, spec)) = Tunables::find(FITTED[index]) {
                values[index] = values[index].clamp(spec.min, spec.max);
            }
        }
    }
    let (likelihood_after, top_after) = measure(&held, &values);
    PriorFit {
        values,
        steps: (training.len(), held.len()),
        log_likelihood: (likelihood_before, likelihood_after),
        top_one: (top_before, top_after),
    }
}

/// The decision at `position` with its logits split into a constant and
/// the fitted weights' coefficients (exact: each logit is linear in them).
/// `chosen` gives (packed action, weight) pairs; None if no weight falls on
/// a child, or there is no choice.
fn step(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    chosen: &[(u32, u32)],
    held_out: bool,
) -> Option<Step> {
    let mut base = Vec::new();
    child_logits(position, rules, tunables, &mut base);
    if base.len() < 2 {
        return None;
    }
    let total: u32 = chosen.iter().map(|&(_, weight)| weight).sum();
    let targets: Vec<(usize, f64)> = chosen
        .iter()
        .filter(|&&(_, weight)| weight > 0)
        .map(|&(action, weight)| {
            let child = base.iter().position(|&(_, packed)| packed == action)?;
            Some((child, f64::from(weight) / f64::from(total)))
        })
        .collect::<Option<_>>()?;
    if targets.is_empty() {
        return None;
    }
    let mut slopes: Vec<Vec<f32>> = Vec::with_capacity(FITTED.len());
    let mut shifted = Vec::new();
    for name in FITTED {
        let mut changed = tunables.clone();
        let value = changed.get(name).unwrap_or_default();
        // A unit step down keeps every weight inside its range.
        changed.set(name, value - 1.0).ok()?;
        child_logits(position, rules, &changed, &mut shifted);
        slopes.push(
            base.iter()
                .zip(&shifted)
                .map(|(&(before, _), &(after, _))| before - after)
                .collect(),
        );
    }
    let current: Vec<f32> = FITTED
        .iter()
        .map(|name| tunables.get(name).unwrap_or_default())
        .collect();
    let mut children = Vec::with_capacity(base.len());
    let mut terms = Vec::new();
    for (child, &(logit, _)) in base.iter().enumerate() {
        let first = terms.len() as u32;
        let mut constant = logit;
        for (index, slope) in slopes.iter().enumerate() {
            let coefficient = slope[child];
            if coefficient != 0.0 {
                terms.push((index as u8, coefficient));
                constant -= coefficient * current[index];
            }
        }
        children.push((constant, first, terms.len() as u32));
    }
    Some(Step {
        children,
        terms,
        targets,
        held_out,
    })
}

/// The children's logits under `values`.
fn logits(step: &Step, values: &[f32]) -> Vec<f64> {
    step.children
        .iter()
        .map(|&(constant, first, last)| {
            let mut logit = f64::from(constant);
            for &(index, coefficient) in &step.terms[first as usize..last as usize] {
                logit += f64::from(coefficient) * f64::from(values[index as usize]);
            }
            logit
        })
        .collect()
}

/// Softmax probabilities of the children (temperature 1, as the default).
fn probabilities(logits: &[f64]) -> Vec<f64> {
    let highest = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exponentials: Vec<f64> = logits.iter().map(|logit| (logit - highest).exp()).collect();
    let total: f64 = exponentials.iter().sum();
    exponentials.iter().map(|value| value / total).collect()
}

/// The gradient of the targets' log-probability (weighted).
fn gradient(step: &Step, values: &[f32]) -> Vec<f64> {
    let mut weights: Vec<f64> = probabilities(&logits(step, values))
        .iter()
        .map(|probability| -probability)
        .collect();
    for &(child, target) in &step.targets {
        weights[child] += target;
    }
    let mut gradient = vec![0.0; FITTED.len()];
    for (child, &(_, first, last)) in step.children.iter().enumerate() {
        let weight = weights[child];
        for &(index, coefficient) in &step.terms[first as usize..last as usize] {
            gradient[index as usize] += weight * f64::from(coefficient);
        }
    }
    gradient
}

/// Mean log-likelihood of the targets (weighted), and how often the most
/// weighted target has the highest logit.
fn measure(steps: &[&Step], values: &[f32]) -> (f64, f64) {
    let mut likelihood = 0.0;
    let mut top = 0;
    for step in steps {
        let logits = logits(step, values);
        let probabilities = probabilities(&logits);
        for &(child, target) in &step.targets {
            likelihood += target * probabilities[child].max(1e-12).ln();
        }
        let best = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let favourite = step
            .targets
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|&(child, _)| child);
        if favourite.is_some_and(|child| logits[child] >= best) {
            top += 1;
        }
    }
    let count = steps.len().max(1) as f64;
    (likelihood / count, top as f64 / count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::hwpn;

    #[test]
    fn a_decomposed_step_reproduces_the_logits() {
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let position = hwpn::parse("r1b2:g3y1:r1/y1b3::g3/g2:r2:b1 0")
            .unwrap()
            .position;
        let mut logits_now = Vec::new();
        child_logits(&position, &rules, &tunables, &mut logits_now);
        let chosen = logits_now[1].1;
        let step = step(&position, &rules, &tunables, &[(chosen, 1)], false).unwrap();
        assert_eq!(step.targets, vec![(1, 1.0)]);
        let values: Vec<f32> = FITTED
            .iter()
            .map(|name| tunables.get(name).unwrap())
            .collect();
        for (rebuilt, (logit, _)) in logits(&step, &values).iter().zip(&logits_now) {
            assert!((rebuilt - f64::from(*logit)).abs() < 1e-4);
        }
        // Raising the weights of what was chosen raises its probability.
        let gradient = gradient(&step, &values);
        let moved: Vec<f32> = values
            .iter()
            .zip(&gradient)
            .map(|(value, grad)| value + 0.1 * *grad as f32)
            .collect();
        let before = probabilities(&logits(&step, &values))[1];
        let after = probabilities(&logits(&step, &moved))[1];
        assert!(after >= before, "{before} -> {after}");
    }

    #[test]
    fn search_visits_become_weighted_targets() {
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let position = hwpn::parse("r1b2:g3y1:r1/y1b3::g3/g2:r2:b1 0")
            .unwrap()
            .position;
        let mut children = Vec::new();
        child_logits(&position, &rules, &tunables, &mut children);
        let (first, second) = (children[0].1, children[2].1);
        let step = step(
            &position,
            &rules,
            &tunables,
            &[(first, 30), (second, 10)],
            true,
        )
        .unwrap();
        assert_eq!(step.targets, vec![(0, 0.75), (2, 0.25)]);
        // An action that is not a child, or no visits at all, is no target.
        assert!(step_of(&position, &[(first, 3), (u32::MAX, 1)]).is_none());
        assert!(step_of(&position, &[(first, 0)]).is_none());
        // The gradient moves probability towards the targets: following it
        // lowers the cross-entropy.
        let values: Vec<f32> = FITTED
            .iter()
            .map(|name| tunables.get(name).unwrap())
            .collect();
        let gradient = gradient(&step, &values);
        let moved: Vec<f32> = values
            .iter()
            .zip(&gradient)
            .map(|(value, grad)| value + 0.05 * *grad as f32)
            .collect();
        let (before, _) = measure(&[&step], &values);
        let (after, _) = measure(&[&step], &moved);
        assert!(after > before, "{before} -> {after}");
    }

    #[test]
    fn fit_is_printed_as_a_comment_and_name_value_lines() {
        let fit = PriorFit {
            values: vec![1.0; FITTED.len()],
            steps: (90, 10),
            log_likelihood: (-2.0, -1.5),
            top_one: (0.25, 0.5),
        };
        let mut out = Vec::new();
        fit.write(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("# 90 decisions fitted, 10 held out: log-likelihood -2.0000 -> -1.5000, top-1 25.0% -> 50.0%")
        );
        assert_eq!(lines.next(), Some(format!("{} 1.00", FITTED[0]).as_str()));
        assert_eq!(lines.count(), FITTED.len() - 1);
    }

    fn step_of(position: &Position, chosen: &[(u32, u32)]) -> Option<Step> {
        step(
            position,
            &Rules::STANDARD,
            &Tunables::default(),
            chosen,
            false,
        )
    }
}
