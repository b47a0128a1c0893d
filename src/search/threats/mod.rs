//! Two-turn threats: an exact check that the opponent cannot force a win
//! within its next two turns, and the root's last line of defence with it.
//!
//! The win-in-1 solver ([`Solver`](super::Solver)) covers a threat the
//! opponent can carry out at once. Games are also lost to plans one turn
//! longer: the opponent gathers ships for a sacrifice-move catastrophe at
//! the mover's home (or a Sitting Duck, a Bluebird) while the mover
//! passes, and once the pieces are in place no reply saves it. This module
//! decides such plans exactly.
//!
//! # Definitions
//! Let B be the side to move in a position P at the start of a turn, and A
//! the other side. *B can force a win in two* (`forced_win_in_two`) when B
//! wins at once in P, or B has a turn T1 after which the game goes on and
//! *every* legal A turn T2 either eliminates A (a win for B) or leaves a
//! position where B wins at once. A turn of A that wins, draws (a mutual
//! elimination) or leaves B no win at once *refutes* T1.
//!
//! Side A to move in a position is under a *two-turn threat* when its
//! natural continuation (a pass, or the turn the search chose) leads to a
//! position where B can force a win in two. A *defence* (`is_defence`) is an
//! A turn that wins at once, or after which the game goes on and B cannot
//! force a win in two; in particular a defence leaves B no win at once. A
//! mutual elimination is not a defence (as it is not "safe" for the root).
//!
//! Repetition and turn limits are ignored: the check is about the board.
//!
//! # Cost and pruning
//! Exhaustively this is B's turns x A's turns x a solver call. Two exact cuts
//! make it affordable:
//! - a B turn T1 can only force a win if A's *pass* after T1 loses at once,
//!   since a pass is one of A's turns (whenever a pass is legal; when it is
//!   not, T1 is checked in full). So only the B turns that put A in check
//!   need A's replies listed, one solver call per B turn decides the rest,
//!   and the solver's own bound answers most of those without a search;
//! - one refutation is enough per T1, and the replies that refuted earlier
//!   threats ("killers": typically the same defensive build or move) are
//!   replayed first, before any listing.
//!
//! What is left costs mostly listings: finding a plan lists B's turns, in
//! an order that puts the plans against A's home first, and proving one
//! lists every reply of A's, tens of thousands in big positions. The
//! `checker` submodule says in what order a check works and why.
//!
//! # Exactness
//! Everything is counted in *work* (listed turns plus solver states), and a
//! check gives up with `None` (unknown) past its work limit or deadline. An
//! answer it does give is exact: what the checker remembers (earlier plans
//! and refutations, where earlier checks stopped) decides only the order in
//! which things are tried and what need not be listed again, and every
//! replayed turn is checked against the rules. With no deadline the answer
//! depends only on the inputs and the order of calls on one
//! [`ThreatChecker`], so node-limited searches stay deterministic. A check
//! that runs out can be asked again, and resumes where it stopped: checks
//! cut short add up to the same answer as one long one.
//!
//! # The pieces
//! The checker itself needs no tree:
//! - `budget`: [`ThreatBudget`], what a check may spend, and the budgets
//!   the root gives its checks;
//! - `checker`: [`ThreatChecker`], the exact check, with the plans and
//!   refutations it remembers;
//! - `resume`: where checks that ran out stopped, and how the next one goes
//!   on from there;
//! - `candidates`: the mover's turns as candidate defences, ordered by the
//!   static evaluation;
//! - `crew`: deciding candidate defences one at a time or on every thread.
//!
//! The root verifier, `verifier`, ties the checker to one search
//! (`mcts::Shared`): it checks the tree's best turn while the search runs
//! and marks a refuted turn in the tree as lost, goes through all the
//! root's turns for a defence once a threat is proven, and has the last
//! word on the turn played. The searcher keeps its checker from turn to
//! turn, so that the opponent's plans found on one turn are tried first on
//! the next.
//!
//! # Where this is tested
//! Besides the unit tests here, `positions/tactics/two_turn.txt` holds
//! positions from real games where the turn played let the opponent force
//! a win in two though a defence existed. `tests/two_turn.rs` checks that
//! the engine at a node limit answers each with a defence, judged by the
//! exact checker; its ignored tests prove each position a threat with a
//! defence, and judge the answers of timed searches.
//! `positions/tactics/win_in_two.txt` holds the other side: positions
//! from real games (and a composed problem) where the side to move forces
//! a win in two, and `tests/win_in_two.rs` checks that the binary's turn
//! there forces it, judged by listing every reply.

mod budget;
mod candidates;
mod checker;
mod crew;
mod resume;
#[cfg(test)]
mod tests;
mod verifier;

use crate::rules::{Action, Outcome, Position, Rules};

pub use budget::ThreatBudget;
pub(super) use budget::{attack_budget, root_budget};
pub use checker::ThreatChecker;
pub(super) use crew::Crew;
pub(super) use verifier::RootVerifier;

/// The position after `turn` from `position`, if it is legal and the game
/// goes on after it.
pub(super) fn result_of(position: &Position, turn: &[Action], rules: &Rules) -> Option<Position> {
    let mut after = *position;
    for &action in turn {
        after.try_apply(rules, action).ok()?;
    }
    (after.end_turn(rules) == Ok(Outcome::Ongoing)).then_some(after)
}
