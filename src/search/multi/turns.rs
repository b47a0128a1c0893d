//! Whole turns of a multi-player position, and the exact checks built on
//! them: an immediate win, and whether a turn leaves the mover open to a
//! loss on the next player's turn or on a later player's.
//!
//! The search's edges are single actions, so it can only see a win or a
//! threat that its playouts happen to reach. These checks look at every
//! distinct whole turn instead (up to a limit, since a turn with a large
//! sacrifice has thousands of orderings), so the search never misses a win
//! in one and never walks into a loss in one when a safe turn exists (the
//! bounds and what a later player's check assumes are in
//! [`super::safety`]).

use std::collections::HashSet;
use std::ops::ControlFlow;

use crate::rules::multi::{MultiAction, MultiOutcome, MultiPosition, Seat, Seats};
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
    walk_turns(position, rules, limit, |actions, result| {
        turns.push(WholeTurn {
            actions: actions.to_vec(),
            result,
        });
        ControlFlow::Continue(())
    });
    turns
}

/// Walks the distinct whole turns of the side to move as [`whole_turns`]
/// lists them, in the same order, handing each one's actions and result to
/// `visit` until it breaks; returns how many positions inside the turn were
/// looked at (at most `limit`, the cost the safety checks count).
fn walk_turns(
    position: &MultiPosition,
    rules: &Rules,
    limit: usize,
    mut visit: impl FnMut(&[MultiAction], MultiPosition) -> ControlFlow<()>,
) -> usize {
    if position.outcome() != MultiOutcome::Ongoing {
        return 0;
    }
    let mut seen_inside = HashSet::new();
    let mut seen_results = HashSet::new();
    let mut stack = vec![(position.clone(), Vec::new())];
    seen_inside.insert(position.hash());
    let mut actions = Vec::new();
    while let Some((current, played)) = stack.pop() {
        if current.turn_state() != TurnState::Start {
            let mut ended = current.clone();
            if ended.end_turn(rules).is_ok()
                && seen_results.insert(ended.hash())
                && visit(&played, ended).is_break()
            {
                break;
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
    seen_inside.len()
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
/// looking at up to `limit` positions inside that turn. It looks at the
/// player to move only; [`loses_to_player`] asks the same of a later one.
pub fn loses_next_turn(position: &MultiPosition, rules: &Rules, seat: Seat, limit: usize) -> bool {
    if position.outcome() != MultiOutcome::Ongoing {
        return has_lost(position, seat);
    }
    if position.side_to_move() == seat {
        return false;
    }
    has_losing_turn(position, rules, seat, limit).0
}

/// Whether `player`, given the turn in `position` as the board stands (the
/// players before them passing), has a whole turn after which `seat` has
/// lost, looking at up to `limit` positions inside that turn; and how many
/// it looked at. `player` must be in the game and not `seat`; otherwise
/// the answer is no, at no cost.
pub fn loses_to_player(
    position: &MultiPosition,
    rules: &Rules,
    seat: Seat,
    player: Seat,
    limit: usize,
) -> (bool, usize) {
    if player == seat || position.outcome() != MultiOutcome::Ongoing {
        return (false, 0);
    }
    let mut given = position.clone();
    if given.skip_to(player, Seats::EMPTY).is_err() || given.outcome() != MultiOutcome::Ongoing {
        return (false, 0);
    }
    has_losing_turn(&given, rules, seat, limit)
}

/// Whether the side to move has a whole turn after which `seat` has lost,
/// stopping at the first, and how many positions inside the turn it looked
/// at (at most `limit`).
fn has_losing_turn(
    position: &MultiPosition,
    rules: &Rules,
    seat: Seat,
    limit: usize,
) -> (bool, usize) {
    let mut found = false;
    let visited = walk_turns(position, rules, limit, |_, result| {
        if has_lost(&result, seat) {
            found = true;
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    (found, visited)
}
