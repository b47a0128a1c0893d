//! Whole turns of a multi-player position, and the exact checks built on
//! them: an immediate win, and whether a turn leaves the mover open to a
//! loss on the next player's turn.
//!
//! The search's edges are single actions, so it can only see a win or a
//! threat that its playouts happen to reach. These checks look at every
//! distinct whole turn instead (up to a limit, since a turn with a large
//! sacrifice has thousands of orderings), so the search never misses a win
//! in one and never walks into a loss in one when a safe turn exists.

use std::collections::HashSet;

use crate::rules::multi::{MultiAction, MultiOutcome, MultiPosition, Seat};
use crate::rules::{Rules, TurnState};

use super::keep_sensible_setups;

/// One distinct whole turn: its actions and the position after its end.
#[derive(Clone, Debug)]
pub struct WholeTurn {
    /// The actions in order (empty only for a bare end of turn, which the
    /// rules never allow at a turn's start).
    pub actions: Vec<MultiAction>,
    /// The position after the turn has ended.
    pub result: MultiPosition,
}

/// Every distinct whole turn of the side to move (distinct by the position
/// it leaves), visiting at most `limit` positions inside the turn. Setups
/// are restricted as the search restricts them (sensible homeworlds only,
/// when there are any). Empty when the game is over.
pub fn whole_turns(position: &MultiPosition, rules: &Rules, limit: usize) -> Vec<WholeTurn> {
    let mut turns = Vec::new();
    if position.outcome() != MultiOutcome::Ongoing {
        return turns;
    }
    let mut seen_inside = HashSet::new();
    let mut seen_results = HashSet::new();
    let mut stack = vec![(position.clone(), Vec::new())];
    seen_inside.insert(position.hash());
    let mut actions = Vec::new();
    while let Some((current, played)) = stack.pop() {
        if current.turn_state() != TurnState::Start {
            let mut ended = current.clone();
            if ended.end_turn(rules).is_ok() && seen_results.insert(ended.hash()) {
                turns.push(WholeTurn {
                    actions: played.clone(),
                    result: ended,
                });
            }
        }
        if seen_inside.len() >= limit {
            continue;
        }
        current.legal_actions(rules, &mut actions);
        if actions.iter().any(|&action| is_setup(action)) {
            keep_sensible_setups(&mut actions);
        }
        for &action in actions.iter().rev() {
            let mut next = current.clone();
            next.apply_unchecked(rules, action);
            if seen_inside.insert(next.hash()) {
                let mut longer = played.clone();
                longer.push(action);
                stack.push((next, longer));
            }
        }
    }
    turns
}

fn is_setup(action: MultiAction) -> bool {
    matches!(
        action,
        MultiAction::Plain(crate::rules::Action::Homeworld { .. })
    )
}

/// Whether `seat` has won in `position` (alone or sharing the win).
pub fn has_won(position: &MultiPosition, seat: Seat) -> bool {
    matches!(position.outcome(), MultiOutcome::Win(winners) if winners.contains(seat))
}

/// Whether `seat` has lost in `position`: out of the game, or the game won
/// by others.
pub fn has_lost(position: &MultiPosition, seat: Seat) -> bool {
    position.out().contains(seat)
        || matches!(position.outcome(), MultiOutcome::Win(winners) if !winners.contains(seat))
}

/// Whether the player to move in `position` has a whole turn after which
/// `seat` has lost (its home emptied, or the game won by someone else),
/// looking at up to `limit` positions inside that turn. Only the next
/// player is checked: the players after them move from positions nobody
/// can predict exactly.
pub fn loses_next_turn(position: &MultiPosition, rules: &Rules, seat: Seat, limit: usize) -> bool {
    if position.outcome() != MultiOutcome::Ongoing {
        return has_lost(position, seat);
    }
    if position.side_to_move() == seat {
        return false;
    }
    whole_turns(position, rules, limit)
        .iter()
        .any(|turn| has_lost(&turn.result, seat))
}
