//! What one reply takes: the exact judgement of a turn's material safety
//! that the one-turn-shots suite (`positions/tactics/one_turn_shots.txt`)
//! is built and checked with, that the GUI's puzzles judge a person's
//! answer by, that Red Alert warns with, and that the search's shot guard
//! (`shot_guard.rs`) weighs the tree's turn by. Every distinct legal reply of the opponent is tried by the
//! rules core; nothing is estimated.
//!
//! A ship's worth is the evaluation's default weight by size (small 1,
//! medium 2.5, large 5.5), and an elimination counts as [`ELIMINATED`].

use std::time::Instant;

use crate::rules::{Action, Outcome, Player, Position, Rules, TurnEnumerator};

/// A swing of at least this much is a lost shot: a large ship captured at
/// the cost of a small one is 4.5, two large ships for a medium 8.5.
pub const SHOT: f32 = 4.5;

/// A turn whose worst reply swings less than this is safe: at most a small
/// ship lost net, or a medium for a small.
pub const SAFE: f32 = 2.0;

/// An elimination counts as this much.
pub const ELIMINATED: f32 = 100.0;

/// A ship's worth by size, in the evaluation's default weights.
const WORTH: [f32; 4] = [0.0, 1.0, 2.5, 5.5];

/// The material of `player`: the worth of its ships on the board.
pub fn material(position: &Position, player: Player) -> f32 {
    position
        .occupied_slots()
        .map(|slot| {
            position.system(slot).ships[player.index()]
                .copies()
                .map(|ship| WORTH[ship.size() as usize])
                .sum::<f32>()
        })
        .sum()
}

/// What the reply `actions` from `after` to `result` takes from the mover
/// (the player not replying), net: the mover's ships captured or
/// destroyed, less the replier's ships sacrificed or destroyed. Builds are
/// not losses of the mover's, and a capture counts once.
pub fn swing(after: &Position, actions: &[Action], result: &Position) -> f32 {
    let replier = after.side_to_move();
    let mover = replier.opponent();
    let (mut sacrificed, mut gained) = (0.0, 0.0);
    for action in actions {
        match *action {
            Action::Sacrifice { ship, .. } => sacrificed += WORTH[ship.size() as usize],
            Action::Capture { ship, .. } => gained += WORTH[ship.size() as usize],
            Action::Build { piece, .. } => gained += WORTH[piece.size() as usize],
            _ => {}
        }
    }
    let mover_lost = material(after, mover) - material(result, mover);
    let replier_destroyed =
        material(after, replier) - sacrificed + gained - material(result, replier);
    mover_lost - sacrificed - replier_destroyed
}

/// The opponent's best single reply to `after` (the mover's turn played,
/// the opponent to move), by [`swing`], over every distinct legal reply:
/// (the swing, the reply). A reply that eliminates the mover swings
/// [`ELIMINATED`].
pub fn worst_reply(after: &Position, rules: &Rules) -> (f32, Vec<Action>) {
    let worst =
        worst_reply_within(after, rules, None, usize::MAX).expect("a listing without limits ends");
    (worst.swing, worst.reply)
}

/// The opponent's best single reply by [`swing`], with the position it
/// leads to.
#[derive(Clone, Debug, PartialEq)]
pub struct WorstReply {
    /// What the reply takes from the mover, net.
    pub swing: f32,
    /// The reply (empty when the opponent has no legal turn).
    pub reply: Vec<Action>,
    /// The position after the reply (the mover to move).
    pub result: Position,
}

/// [`worst_reply`] bounded in time (`deadline`) and work (`most_turns`
/// replies listed), for a searcher on the clock or a person waiting on the
/// answer: `None` when the listing did not finish, so that a caller says
/// nothing rather than judge from part of the replies.
pub fn worst_reply_within(
    after: &Position,
    rules: &Rules,
    deadline: Option<Instant>,
    most_turns: usize,
) -> Option<WorstReply> {
    let mover = after.side_to_move().opponent();
    let mut worst = WorstReply {
        swing: f32::NEG_INFINITY,
        reply: Vec::new(),
        result: *after,
    };
    let mut listed = 0usize;
    let mut over_budget = false;
    let complete = TurnEnumerator::default().for_each_turn_while(
        after,
        rules,
        deadline,
        |actions, result, outcome| {
            listed += 1;
            if listed > most_turns {
                over_budget = true;
                return false;
            }
            let swing = match outcome {
                Outcome::Win(winner) if winner != mover => ELIMINATED,
                _ => swing(after, actions, result),
            };
            if swing > worst.swing {
                worst = WorstReply {
                    swing,
                    reply: actions.to_vec(),
                    result: *result,
                };
            }
            true
        },
    );
    (complete && !over_budget).then_some(worst)
}

/// `position` after `actions`, if the turn is legal and the game goes on.
pub fn played(position: &Position, rules: &Rules, actions: &[Action]) -> Option<Position> {
    let mut after = *position;
    for &action in actions {
        after.try_apply(rules, action).ok()?;
    }
    matches!(after.end_turn(rules), Ok(Outcome::Ongoing)).then_some(after)
}
