//! The root's exact checks around the tree search, which make the module's
//! guarantees hold whatever the tree does:
//!
//! 1. a turn that eliminates the opponent at once is played at once;
//! 2. in check (the opponent could win at once after a pass), every turn is
//!    classified, and the tree searches only the safe ones; with one safe
//!    turn, or only a mutual elimination left, there is nothing to search;
//! 3. after the search, the tree's best turn (or, failing that, its next
//!    candidates) is verified safe; when none is, or when the tree holds no
//!    turn at all (a tree too small to store the root's first child), the
//!    answer is the greedy one-ply choice with the same exact checks.
//!
//! The search always runs at least one iteration (see `run.rs`), so a
//! search stopped at once still answers the root's first choice by its
//! priors, verified here, rather than a pass that throws the turn away.
//!
//! # One search, in order
//! 1. A win at once is played (the win-in-one solver, exact).
//! 2. In check, the turns are classified as they are listed, the solver
//!    replaying its remembered win first, within most of the planned time
//!    (a big position has tens of thousands of turns). With every turn
//!    classified the tree searches only the safe ones, and the defence
//!    search takes its candidates from them; a listing cut short leaves the
//!    tree every turn, and the classification is resumed after the search
//!    only if none of the tree's turns is safe.
//! 3. The root looks for a forced win in two (a turn after which every
//!    reply leaves a win at once) and plays it at once: far ahead, every
//!    leaf looks won, and the tree alone can shuffle until the turn limit.
//!    On the clock it looks only far ahead by the static value and out of
//!    check (looking everywhere cost strength at 20 ms a turn); under a
//!    node limit, whose work is not counted in time, in every position.
//! 4. During the search the two-turn checker (`search::threats`) looks at the
//!    tree's best turn for opponent plans that need one preparatory turn
//!    (a sacrifice-move catastrophe gathered at a home, a Bluebird, a
//!    Sitting Duck); a refuted turn becomes a proven loss in the tree, so
//!    the tree itself moves to the alternatives. Under a threat with no
//!    defence known, the checker also goes through the root's turns, best
//!    first by the static value, in slices of time between stretches of
//!    tree growth.
//! 5. After the search, [`choose`] picks the tree's best turn that the
//!    exact checks allow, the shot guard (`shot_guard.rs`) weighs it
//!    against the other candidates where one reply takes material from it,
//!    and the verifier replaces it by a defence when a
//!    known plan of the opponent still wins against it.

use std::time::Instant;

use super::info::TreeReading;
use super::players::{greedy, Choice, SafeTurns};
use super::report::{Decision, Proof, SearchResult};
use super::shot_guard::Guard;
use super::solver::Solver;
use super::tunables::Tunables;
use crate::rules::{Action, Outcome, Position, Rules};

/// With more safe turns than this in check, the tree is not restricted to
/// them: most turns are safe, its own win-in-one checks at the leaves find
/// the others, and hashing every position on tens of thousands of safe
/// turns took longer than the search's whole time at 100 ms a turn.
/// [`choose`] verifies the tree's choice either way.
const FILTERED_TURNS: usize = 4096;

/// What the root checks found before the tree runs.
pub(super) enum Examined {
    /// The turn is decided without the tree.
    Decided(SearchResult),
    /// The tree must search, within these findings.
    Search(RootCheck),
}

/// What the tree search and its verification need to know about the root.
#[derive(Default)]
pub(super) struct RootCheck {
    /// Whether the opponent could win at once after a pass.
    pub in_check: bool,
    /// The turns classified, when in check: all of them, or those listed
    /// before the deadline (resumed by [`choose`] if it needs them).
    pub safe_turns: Option<SafeTurns>,
    /// Sorted hashes of the positions on the safe turns, to restrict the
    /// tree to them (when there are several).
    pub filter: Option<Vec<u64>>,
}

/// Checks 1 and 2. Listing the turns in check can take a while in big
/// positions, so it stops at `deadline`; the tree then searches every
/// turn, [`choose`] still verifies its choice exactly, and classifies the
/// rest of the turns only if none of the tree's is safe.
pub(super) fn examine(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    solver: &mut Solver,
    deadline: Option<Instant>,
    start: Instant,
) -> Examined {
    if let Some(turn) = solver.find_win(position, rules) {
        let mut result = SearchResult::decided(turn, 1.0, Decision::ImmediateWin, start.elapsed());
        result.info.proof = Some(Proof::Win);
        return Examined::Decided(result);
    }
    let mut check = RootCheck {
        in_check: solver.threatened(position, rules),
        ..RootCheck::default()
    };
    if !check.in_check {
        return Examined::Search(check);
    }
    let analysis = SafeTurns::classify(position, rules, tunables, solver, deadline);
    if !analysis.complete {
        // The tree searches every turn; `choose` resumes the classification.
        check.safe_turns = Some(analysis);
        return Examined::Search(check);
    }
    let decided = match analysis.safe.as_slice() {
        [] => analysis.draws.first().map(|&draw| {
            let turn = analysis.list.actions(draw).to_vec();
            (turn, 0.0, Decision::ForcedDraw)
        }),
        &[only] => {
            let turn = analysis.list.actions(only).to_vec();
            Some((
                turn,
                analysis.list.entries[only].score,
                Decision::OnlySafeTurn,
            ))
        }
        many if many.len() > FILTERED_TURNS => None,
        _ => {
            check.filter = Some(analysis.filter(position, rules));
            None
        }
    };
    if let Some((turn, value, decision)) = decided {
        let mut result = SearchResult::decided(turn, value, decision, start.elapsed());
        result.info.in_check = true;
        return Examined::Decided(result);
    }
    check.safe_turns = Some(analysis);
    Examined::Search(check)
}

/// Check 3: the tree's first safe turn, else the greedy choice among every
/// turn (from the in-check classification when there is one), classified
/// until `deadline`: past it, among the turns classified by then, and the
/// tree's best turn when none of them is safe.
pub(super) fn choose(
    reading: &TreeReading,
    check: RootCheck,
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    solver: &mut Solver,
    deadline: Option<Instant>,
) -> Choice {
    for turn in reading.turns() {
        if is_safe(&turn.actions, position, rules, &check, solver) {
            let guard = Guard {
                position,
                rules,
                tunables,
                check: &check,
                deadline,
            };
            if let Some(choice) = guard.weigh(turn, reading, solver) {
                return choice;
            }
            return Choice {
                actions: turn.actions.clone(),
                value: turn.value,
                decision: Decision::Search,
            };
        }
    }
    // The classification chooses what `greedy` would, and stops at the
    // deadline (in check, it goes on from where the root's stopped).
    let mut classified = match check.safe_turns {
        Some(analysis) => analysis,
        None => SafeTurns::classify(position, rules, tunables, solver, deadline),
    };
    classified.resume(position, rules, tunables, solver, deadline);
    let mut choice = classified.greedy_choice();
    let Some(best) = &reading.best else {
        // The tree holds no turn: the greedy choice is the whole answer.
        if choice.actions.is_empty() {
            return greedy(position, rules, tunables, solver);
        }
        return choice;
    };
    match choice.decision {
        Decision::Greedy | Decision::ImmediateWin => choice.decision = Decision::SafetyFallback,
        // Every turn loses at once (or none classified in time is safe): the
        // tree may know which holds out longest.
        Decision::NoSafeTurn | Decision::NoSafeTurnFound => {
            choice.actions = best.actions.clone();
            choice.value = best.value;
        }
        _ => {}
    }
    choice
}

/// Whether a turn replays legally and leaves the opponent no win at once (a
/// win for the mover is safe, a mutual elimination is not).
pub(super) fn is_safe(
    turn: &[Action],
    position: &Position,
    rules: &Rules,
    check: &RootCheck,
    solver: &mut Solver,
) -> bool {
    let mut replay = *position;
    if !turn
        .iter()
        .all(|&action| replay.try_apply(rules, action).is_ok())
    {
        return false;
    }
    match replay.end_turn(rules) {
        Ok(Outcome::Win(winner)) => winner == position.side_to_move(),
        Ok(Outcome::Draw) | Err(_) => false,
        Ok(Outcome::Ongoing) => match &check.safe_turns {
            Some(analysis) if analysis.complete => analysis.is_safe_result(replay.hash()),
            _ => !solver.can_win(&replay, rules),
        },
    }
}
