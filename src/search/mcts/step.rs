//! Following an edge of the tree: the action applied to the replayed
//! position, and the turn ended where nothing but its end is left.

use super::super::facts::has_overpopulation;
use super::super::tree::END_TURN;
use crate::rules::{Action, Outcome, Position, Rules, Slot, TurnState, SLOT_COUNT};

/// Whether any catastrophe could be fired now.
pub(crate) fn any_catastrophe(position: &Position) -> bool {
    (0..SLOT_COUNT as Slot).any(|slot| has_overpopulation(position.system(slot).pieces()))
}

/// Where following an edge led.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Still inside the same turn.
    Inside,
    /// The turn ended with this outcome.
    Ended(Outcome),
    /// The edge could not be followed (never happens with a consistent tree).
    Invalid,
}

/// Follows an edge: applies the action, or ends the turn, and ends it
/// automatically when nothing but the end is left.
pub(crate) fn advance(position: &mut Position, rules: &Rules, action: u32, turn: &mut u32) -> Step {
    advance_hinted(position, rules, action, turn, None)
}

/// [`advance`], told by `ends` (when the child already exists) whether the
/// edge ends the turn, which saves looking for catastrophes.
pub(crate) fn advance_hinted(
    position: &mut Position,
    rules: &Rules,
    action: u32,
    turn: &mut u32,
    ends: Option<bool>,
) -> Step {
    if action == END_TURN {
        return match position.end_turn(rules) {
            Ok(outcome) => {
                *turn += 1;
                Step::Ended(outcome)
            }
            Err(_) => Step::Invalid,
        };
    }
    let Some(action) = Action::unpack(action) else {
        return Step::Invalid;
    };
    debug_assert!(
        position.check(rules, action).is_ok(),
        "tree edge {action:?} is illegal in {position:?}"
    );
    position.apply_unchecked(rules, action);
    let ends = match ends {
        Some(ends) => ends,
        None => position.turn_state() == TurnState::Done && !any_catastrophe(position),
    };
    if ends {
        let mut ended = *position;
        if let Ok(outcome) = ended.end_turn(rules) {
            *position = ended;
            *turn += 1;
            return Step::Ended(outcome);
        }
    }
    Step::Inside
}

/// One edge of a worker's last path: its action, and the position, turn
/// and step that following it gave.
#[derive(Clone, Copy)]
pub(super) struct FollowedEdge {
    pub action: u32,
    pub position: Position,
    pub turn: u32,
    pub step: Step,
}
