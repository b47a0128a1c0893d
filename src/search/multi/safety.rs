//! The root's safety check: whether a whole turn lets another player make
//! the mover lose before the mover's next turn, and which turn replaces an
//! unsafe choice.
//!
//! **What it covers.** A turn is safe when, after it, the mover is still in
//! the game and
//! - the next player has no whole turn after which the mover has lost
//!   (looked at exactly, up to [`REPLY_TURN_LIMIT`] positions inside that
//!   turn, as the check always did), and
//! - no later player (the ones after the next, up to the mover) has one
//!   either, on the board as the mover's turn leaves it: the players in
//!   between are taken to pass. "Lost" is [`turns::has_lost`]: eliminated,
//!   or the game won by someone else, so under Sinister it covers the
//!   mover's hunter eliminating it and any other player (its target among
//!   them) eliminating their own target and winning; in Good versus Evil an
//!   Evil player winning by an elimination.
//!
//! Under Sinister the later players are not looked at (the search's
//! `later_safety` says why: it measured far weaker there); the next
//! player's check covers the target winning by eliminating its own target.
//!
//! The players in between could also open the way for a later one (move
//! away the ship that blocked it, sacrifice to help); looking at every
//! turn of theirs and every answer to each would cost the product of the
//! two (hundreds of thousands of positions for one candidate), so that is
//! not covered. What is covered is the threat that stands: the one nobody
//! needs to help with.
//!
//! **Its cost is bounded.** The next player's check runs for every turn
//! it judges, as before; the later players' checks draw on a budget of
//! [`LATER_BUDGET`] listed positions per decision (each listing at most
//! [`LATER_TURN_LIMIT`]). A turn judged after the budget is spent is judged
//! on the next player alone, and a listing cut at its limit counts as no
//! threat found: the check is exact where it ran to its end. Each listing
//! stops at the first losing turn it finds. The chosen turn is judged
//! first, then the best-evaluated turns in order, so the budget goes where
//! the choice is made. On the clock the tree stops at
//! four fifths (`TREE_TIME_SHARE`) of the time and the later players' checks
//! stop when the time is up, so that the answer is not late.
//!
//! **Which turn replaces an unsafe one.** The best-evaluated turn among
//! the first [`SAFETY_CANDIDATES`] that is safe against everyone; failing
//! that, the chosen turn if it is safe against the next player, else the
//! best such candidate (what the check did when it looked at the next
//! player only); failing that, a turn that keeps the mover in the game.

use std::time::Instant;

use crate::rules::multi::{MultiAction, MultiPosition, Seat};
use crate::rules::Rules;

use super::{evaluate, result_of, turns};

/// Positions looked at inside the next player's turn by a safety check.
pub const REPLY_TURN_LIMIT: usize = 3_000;
/// Positions looked at inside a later player's turn. Larger than the next
/// player's limit: the threat that matters most here is a sacrifice that
/// brings ships in from afar (a catastrophe at the mover's home), deep in
/// the listing's order; at 3,000 such a threat was missed after one turn of
/// the mover and found after another, so a turn looked safe because its
/// listing stopped early. A listing costs about 2 µs a position.
pub const LATER_TURN_LIMIT: usize = 20_000;
/// Alternative turns checked for safety when the tree's choice is unsafe.
pub const SAFETY_CANDIDATES: usize = 24;
/// Positions the later players' checks may look at in all, per decision
/// (about a quarter of a second at most): the chosen turn and a few
/// candidates in full, or many candidates whose threat shows early.
pub const LATER_BUDGET: usize = 120_000;

/// How safe a turn's result is for the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Safety {
    /// The mover is out, or has lost.
    Lost,
    /// The next player can make the mover lose.
    NextThreat,
    /// A later player can, on the board as it stands.
    LaterThreat,
    /// Nobody can, as far as the check looked.
    Safe,
}

/// Judges the results of the mover's turns, spending the later players'
/// budget as it goes.
pub(super) struct SafetyCheck<'a> {
    rules: &'a Rules,
    mover: Seat,
    /// Whether the players after the next are looked at.
    later: bool,
    /// What is left of [`LATER_BUDGET`].
    budget: usize,
    /// When the later players' checks stop, on the clock: the answer is
    /// due then, and those checks come after the tree's time.
    deadline: Option<Instant>,
}

impl<'a> SafetyCheck<'a> {
    /// A check for `mover`'s turns; `later` turns on the later players'
    /// checks, which stop at `deadline` if there is one.
    pub(super) fn new(
        rules: &'a Rules,
        mover: Seat,
        later: bool,
        deadline: Option<Instant>,
    ) -> SafetyCheck<'a> {
        SafetyCheck {
            rules,
            mover,
            later,
            budget: LATER_BUDGET,
            deadline,
        }
    }

    /// Whether nobody can make the mover lose after `result`, as far as the
    /// check looks (see the module docs).
    pub(super) fn is_safe(&mut self, result: &MultiPosition) -> bool {
        self.judge(result) == Safety::Safe
    }

    fn judge(&mut self, result: &MultiPosition) -> Safety {
        let mover = self.mover;
        if turns::has_lost(result, mover) {
            return Safety::Lost;
        }
        if turns::loses_next_turn(result, self.rules, mover, REPLY_TURN_LIMIT) {
            return Safety::NextThreat;
        }
        if self.later && self.later_threat(result) {
            return Safety::LaterThreat;
        }
        Safety::Safe
    }

    /// Whether a player after the next can make the mover lose on the board
    /// `result` leaves, within what is left of the budget.
    fn later_threat(&mut self, result: &MultiPosition) -> bool {
        let next = result.side_to_move();
        let mut player = result.next_in_game(next);
        while let Some(seat) = player.filter(|&seat| seat != self.mover && seat != next) {
            let late = self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline);
            if self.budget == 0 || late {
                return false;
            }
            let limit = self.budget.min(LATER_TURN_LIMIT);
            let (loses, looked) =
                turns::loses_to_player(result, self.rules, self.mover, seat, limit);
            self.budget = self.budget.saturating_sub(looked.max(1));
            if loses {
                return true;
            }
            player = result.next_in_game(seat);
        }
        false
    }
}

/// `chosen` if it is safe, else its replacement, as the module docs say.
pub(super) fn safe_choice(
    position: &MultiPosition,
    rules: &Rules,
    chosen: Vec<MultiAction>,
    root_turns: &mut [turns::WholeTurn],
    later: bool,
    deadline: Option<Instant>,
) -> Vec<MultiAction> {
    let mover = position.side_to_move();
    let mut check = SafetyCheck::new(rules, mover, later, deadline);
    let chosen_safety = result_of(position, rules, &chosen).map(|result| check.judge(&result));
    if chosen_safety == Some(Safety::Safe) {
        return chosen;
    }
    sort_by_value(root_turns, mover);
    let candidates: Vec<&turns::WholeTurn> = root_turns
        .iter()
        .filter(|turn| !turns::has_lost(&turn.result, mover))
        .collect();
    let mut next_safe: Option<&turns::WholeTurn> = None;
    for turn in candidates.iter().take(SAFETY_CANDIDATES) {
        match check.judge(&turn.result) {
            Safety::Safe => return turn.actions.clone(),
            Safety::LaterThreat => {
                next_safe.get_or_insert(turn);
            }
            Safety::Lost | Safety::NextThreat => {}
        }
    }
    if chosen_safety == Some(Safety::LaterThreat) {
        return chosen;
    }
    if let Some(turn) = next_safe {
        return turn.actions.clone();
    }
    let keeps_home = chosen_safety.is_some_and(|safety| safety != Safety::Lost);
    match candidates.first() {
        Some(turn) if !keeps_home => turn.actions.clone(),
        _ => chosen,
    }
}

/// `chosen`, unless its result is one of `avoid` (positions this player's
/// turns already led to from here: a cycle); then the best-evaluated safe
/// turn among the first [`SAFETY_CANDIDATES`] that leads somewhere new, if
/// there is one. A deterministic player in a cycle would otherwise repeat
/// it until the turn limit.
pub(super) fn fresh_choice(
    position: &MultiPosition,
    rules: &Rules,
    chosen: Vec<MultiAction>,
    root_turns: &mut [turns::WholeTurn],
    avoid: &[u64],
    later: bool,
    deadline: Option<Instant>,
) -> Vec<MultiAction> {
    let repeats = |result: &MultiPosition| avoid.contains(&result.hash());
    let Some(result) = result_of(position, rules, &chosen) else {
        return chosen;
    };
    if !repeats(&result) {
        return chosen;
    }
    let mover = position.side_to_move();
    let mut check = SafetyCheck::new(rules, mover, later, deadline);
    sort_by_value(root_turns, mover);
    root_turns
        .iter()
        .filter(|turn| !turns::has_lost(&turn.result, mover) && !repeats(&turn.result))
        .take(SAFETY_CANDIDATES)
        .find(|turn| check.is_safe(&turn.result))
        .map_or(chosen, |turn| turn.actions.clone())
}

/// Sorts `root_turns` best first by the mover's evaluated share.
fn sort_by_value(root_turns: &mut [turns::WholeTurn], mover: Seat) {
    let value = |turn: &turns::WholeTurn| evaluate::evaluated_shares(&turn.result)[mover as usize];
    root_turns.sort_by(|first, second| value(second).total_cmp(&value(first)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::multi::parse;

    /// After this turn of seat 0 (from a self-play game) seat 1, to move,
    /// cannot hurt it, but seat 2 can bring two yellow ships into Home0 and
    /// end seat 0 with a yellow catastrophe (tests/multi_later_safety.rs).
    const LATER_THREAT: &str = "players=3 Home0=r3b2:y1y3::/Home1=r3b2::r3y1y1y2g1g2:\
/Home2=r3b2:::y2y3y3g1g3/Kotok=b1:::b1/Minsky=b1::r2g3b2:y3/Lebling=b1:g1g2g3::\
/Licklider=g2:g2::/Delos=y1:g1:: 1";

    #[test]
    fn the_later_check_runs_within_its_budget() {
        let result = parse(LATER_THREAT).unwrap().position;
        let rules = Rules::STANDARD;
        let mut check = SafetyCheck::new(&rules, 0, true, None);
        assert_eq!(check.judge(&result), Safety::LaterThreat);
        let spent = LATER_BUDGET - check.budget;
        assert!(spent > 0 && spent <= LATER_TURN_LIMIT, "{spent}");
        // Off, or with its budget spent, it judges by the next player.
        assert!(SafetyCheck::new(&rules, 0, false, None).is_safe(&result));
        let mut spent_check = SafetyCheck::new(&rules, 0, true, None);
        spent_check.budget = 0;
        assert!(spent_check.is_safe(&result));
        // A budget too small for the listing finds nothing either.
        spent_check.budget = 100;
        assert!(spent_check.is_safe(&result));
        assert_eq!(spent_check.budget, 0);
    }
}
