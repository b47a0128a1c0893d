//! Reading turns and lines out of the tree: the best turn (completed
//! outside the tree where the tree is thin), the candidate turns for
//! multi-PV and verification, and the principal variation.
//!
//! These run after a search (and for progress reports), never on the tree's
//! hot path; they only read the tree.

use std::sync::atomic::Ordering;

use ahash::AHashSet;

use super::eval;
use super::mcts::{advance, proof_for, proof_value, Step};
use super::tree::{
    Tree, END_TURN, EXPANDED, PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN, UNPROVEN, WIDENING,
};
use super::tunables::{Tunable, Tunables};
use crate::rules::{Action, Outcome, Player, Position, Rules, TurnEnumerator, TurnState};

/// What a completion outside the tree must know of the game so far: the
/// start-of-turn positions already played (sorted hashes) and what ending
/// on one of them is worth to the root mover (the tree's draw value, with
/// contempt). Without it a greedy completion walked a won position back
/// into a repetition the tree itself would have scored as a draw.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Repeats<'a> {
    /// Sorted hashes of the game's earlier start-of-turn positions.
    pub history: &'a [u64],
    /// The score of a repeated result for the root mover.
    pub draw: f32,
}

impl Repeats<'_> {
    /// The score of `result` after a turn that ended with `outcome`: the
    /// draw's when it repeats the game, else [`turn_score`].
    fn score(
        &self,
        result: &Position,
        outcome: Outcome,
        mover: Player,
        tunables: &Tunables,
    ) -> f32 {
        if self.repeats(result, outcome) {
            self.draw
        } else {
            turn_score(result, outcome, mover, tunables)
        }
    }

    /// Whether an ongoing `result` is a start-of-turn position played before.
    fn repeats(&self, result: &Position, outcome: Outcome) -> bool {
        outcome == Outcome::Ongoing && self.history.binary_search(&result.hash()).is_ok()
    }
}

/// A complete turn read from the tree.
#[derive(Clone, Debug)]
pub(crate) struct TreeTurn {
    /// The actions.
    pub actions: Vec<Action>,
    /// The position after the turn (opponent to move).
    pub result: Position,
    /// The node for `result` (0 if the turn was completed outside the tree).
    pub child: u32,
    /// Visits through the turn's last edge.
    pub visits: u64,
    /// Value for the root mover.
    pub value: f32,
    /// Proof for the root mover.
    pub proof: u8,
}

/// The child edge to follow when reading a line: a proven win, else the
/// most visited child that is not a proven loss (ties to the better value),
/// else the most visited.
pub(crate) fn pick_edge(tree: &Tree, node_id: u32) -> Option<u32> {
    let node = tree.node(node_id);
    let state = node.state.load(Ordering::Acquire);
    if state != EXPANDED && state != WIDENING {
        return None;
    }
    let mover = node.mover();
    let (first, count, _) = node.children();
    let mut best: Option<(u32, (u8, u32, f32))> = None;
    for index in first..first + count {
        let edge = tree.edge(index);
        let child = edge.child.load(Ordering::Acquire);
        if child == 0 {
            continue;
        }
        let visits = edge.visits.load(Ordering::Relaxed);
        if visits == 0 {
            continue;
        }
        let proof = proof_for(tree, child, mover);
        let rank = match proof {
            PROVEN_WIN => 3,
            PROVEN_LOSS => 0,
            PROVEN_DRAW => 1,
            _ => 2,
        };
        let value = child_value(tree, child, mover);
        let key = (rank, visits, value);
        let better = match &best {
            None => true,
            Some((_, current)) => {
                key.0 > current.0
                    || (key.0 == current.0
                        && (key.1 > current.1 || (key.1 == current.1 && key.2 > current.2)))
            }
        };
        if better {
            best = Some((index, key));
        }
    }
    best.map(|(index, _)| index)
}

/// A child's value from the parent mover's point of view.
pub(crate) fn child_value(tree: &Tree, child: u32, mover: usize) -> f32 {
    let node = tree.node(child);
    let proof = node.proof.load(Ordering::Acquire);
    let value = if proof != UNPROVEN {
        proof_value(proof)
    } else {
        node.mean().unwrap_or_else(|| node.static_value())
    };
    if node.mover() == mover {
        value
    } else {
        -value
    }
}

/// The best turn in the tree: follow the best child from the root until the
/// turn ends; at a barely visited intra-turn node, end the turn there (or
/// complete it greedily when ending is not sensible). `None` when the root
/// has no visited child: a search stopped before its first iteration holds
/// no turn it could justify (ending the turn there would be a pass).
pub(crate) fn best_turn(
    tree: &Tree,
    rules: &Rules,
    tunables: &Tunables,
    root: u32,
    root_position: &Position,
    repeats: Repeats,
) -> Option<TreeTurn> {
    let min_visits = tunables[Tunable::ExtractMinVisits] as u32;
    let root_mover = root_position.side_to_move().index();
    let mut position = *root_position;
    let mut node_id = root;
    let mut actions = Vec::new();
    let mut turn = 0;
    loop {
        let node = tree.node(node_id);
        let thin = node_id != root && node.visits.load(Ordering::Relaxed) < min_visits;
        // A proven win is exact however few visits found it: follow it, or
        // the turn that carries it may be cut short (a sacrifice, then a pass).
        let edge = pick_edge(tree, node_id).filter(|&index| {
            let child = tree.edge(index).child.load(Ordering::Acquire);
            !thin || proof_for(tree, child, node.mover()) == PROVEN_WIN
        });
        let Some(edge_index) = edge else {
            if node_id == root {
                return None;
            }
            // Finish the turn outside the tree.
            let (rest, result) = complete_turn(&position, rules, tunables, repeats)?;
            actions.extend(rest);
            let value = child_value(tree, node_id, root_mover);
            return Some(TreeTurn {
                actions,
                result,
                child: 0,
                visits: node.visits.load(Ordering::Relaxed) as u64,
                value,
                proof: UNPROVEN,
            });
        };
        let edge = tree.edge(edge_index);
        let action = edge.action.load(Ordering::Relaxed);
        let child = edge.child.load(Ordering::Acquire);
        let step = advance(&mut position, rules, action, &mut turn);
        if action != END_TURN {
            actions.push(Action::unpack(action)?);
        }
        match step {
            Step::Invalid => return None,
            Step::Ended(_) => {
                return Some(TreeTurn {
                    actions,
                    result: position,
                    child,
                    visits: edge.visits.load(Ordering::Relaxed) as u64,
                    value: child_value(tree, child, root_mover),
                    proof: proof_for(tree, child, root_mover),
                });
            }
            Step::Inside => node_id = child,
        }
    }
}

/// Completes a partial turn outside the tree: once the turn's action is
/// done, end it now if that is legal and does not eliminate only the
/// mover, else the best completion by the static evaluation. Inside a
/// sacrifice, the remaining actions are chosen first
/// ([`use_sacrifice`]). A result that repeats the game scores as the
/// tree's draw (`repeats`), so ending there is not taken for granted.
/// Returns the added actions and the result.
pub(crate) fn complete_turn(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    repeats: Repeats,
) -> Option<(Vec<Action>, Position)> {
    let mut position = *position;
    let mut actions = use_sacrifice(&mut position, rules, tunables, repeats);
    let mover = position.side_to_move();
    let mut ended = position;
    if let Ok(outcome) = ended.end_turn(rules) {
        if outcome != Outcome::Win(mover.opponent()) && !repeats.repeats(&ended, outcome) {
            return Some((actions, ended));
        }
    }
    let mut best: Option<(f32, Vec<Action>, Position)> = None;
    TurnEnumerator::default().for_each_turn(&position, rules, |rest, result, outcome| {
        let score = repeats.score(result, outcome, mover, tunables);
        let better = match &best {
            None => true,
            Some((current, _, _)) => score > *current,
        };
        if better {
            best = Some((score, rest.to_vec(), *result));
        }
    });
    let (_, rest, result) = best?;
    actions.extend(rest);
    Some((actions, result))
}

/// Inside a sacrifice, plays its remaining actions one at a time, each the
/// action (or the end of the turn) whose result, with the turn ended there,
/// the static evaluation likes best; returns the actions played.
///
/// Ending at once would throw the sacrificed ship away for nothing, and
/// the tree reaches such a node thin mostly at short time controls: ending
/// there cost whole ships, and drew won games by repetition where the
/// position before the sacrifice had come round before. Listing every
/// completion instead is exact but can take tens of milliseconds (a large
/// sacrifice in a crowded position has hundreds of thousands), and the
/// answer must come at once; one action at a time costs a few hundred
/// evaluations.
fn use_sacrifice(
    position: &mut Position,
    rules: &Rules,
    tunables: &Tunables,
    repeats: Repeats,
) -> Vec<Action> {
    let mover = position.side_to_move();
    let ended_score = |after: &Position| {
        let mut ended = *after;
        let outcome = ended.end_turn(rules).ok()?;
        (outcome != Outcome::Win(mover.opponent()))
            .then(|| repeats.score(&ended, outcome, mover, tunables))
    };
    let mut played = Vec::new();
    while matches!(position.turn_state(), TurnState::Sacrifice { .. }) {
        let mut best: Option<(f32, Option<Action>)> =
            ended_score(position).map(|score| (score, None));
        position.for_each_action(rules, |action| {
            let mut after = *position;
            if after.try_apply(rules, action).is_err() {
                return;
            }
            if let Some(score) = ended_score(&after) {
                if best.is_none_or(|(current, _)| score > current) {
                    best = Some((score, Some(action)));
                }
            }
        });
        let Some((_, Some(action))) = best else {
            break;
        };
        if position.try_apply(rules, action).is_err() {
            break;
        }
        played.push(action);
    }
    played
}

/// A whole turn's score for the mover: wins first, losses last, otherwise
/// the static value of the result.
pub(crate) fn turn_score(
    result: &Position,
    outcome: Outcome,
    mover: Player,
    tunables: &Tunables,
) -> f32 {
    match outcome {
        Outcome::Win(winner) if winner == mover => 10.0,
        Outcome::Win(_) => -10.0,
        Outcome::Draw => -0.999,
        Outcome::Ongoing => -eval::value(result, tunables, false),
    }
}

/// Up to `limit` distinct turns from the root's own turn in the tree, best
/// first (proven wins, then most visits), each with its value.
pub(crate) fn candidate_turns(
    tree: &Tree,
    rules: &Rules,
    root: u32,
    root_position: &Position,
    limit: usize,
) -> Vec<TreeTurn> {
    let root_mover = root_position.side_to_move().index();
    let mut found: Vec<TreeTurn> = Vec::new();
    let mut seen_children = AHashSet::new();
    let mut seen_nodes = AHashSet::new();
    let mut stack = vec![(root, *root_position, Vec::new())];
    let mut budget = 20_000;
    while let Some((node_id, position, actions)) = stack.pop() {
        budget -= 1;
        if budget == 0 {
            break;
        }
        let node = tree.node(node_id);
        let state = node.state.load(Ordering::Acquire);
        if state != EXPANDED && state != WIDENING {
            continue;
        }
        let (first, count, _) = node.children();
        for index in first..first + count {
            let edge = tree.edge(index);
            let child = edge.child.load(Ordering::Acquire);
            let visits = edge.visits.load(Ordering::Relaxed);
            if child == 0 || visits == 0 {
                continue;
            }
            let action = edge.action.load(Ordering::Relaxed);
            let mut next = position;
            let mut turn = 0;
            let step = advance(&mut next, rules, action, &mut turn);
            let mut path = actions.clone();
            if action != END_TURN {
                match Action::unpack(action) {
                    Some(action) => path.push(action),
                    None => continue,
                }
            }
            match step {
                Step::Invalid => {}
                Step::Ended(_) => {
                    if seen_children.insert(child) {
                        let proof = proof_for(tree, child, root_mover);
                        found.push(TreeTurn {
                            actions: path,
                            result: next,
                            child,
                            visits: tree.node(child).visits.load(Ordering::Relaxed) as u64,
                            value: child_value(tree, child, root_mover),
                            proof,
                        });
                    }
                }
                Step::Inside => {
                    if seen_nodes.insert(child) {
                        stack.push((child, next, path));
                    }
                }
            }
        }
    }
    let rank = |turn: &TreeTurn| match turn.proof {
        PROVEN_WIN => 3,
        PROVEN_LOSS => 0,
        PROVEN_DRAW => 1,
        _ => 2,
    };
    found.sort_by(|a, b| {
        rank(b)
            .cmp(&rank(a))
            .then(b.visits.cmp(&a.visits))
            .then(b.value.total_cmp(&a.value))
    });
    found.truncate(limit);
    found
}

/// The principal variation after the first turn: follow the best children
/// from `node_id` (a start-of-turn node for `position`), one whole turn at a
/// time, for at most `max_turns` turns.
pub(crate) fn continuation(
    tree: &Tree,
    rules: &Rules,
    mut node_id: u32,
    mut position: Position,
    max_turns: usize,
) -> Vec<Vec<Action>> {
    let mut turns = Vec::new();
    let mut current = Vec::new();
    let mut turn = 0;
    while node_id != 0 && turns.len() < max_turns {
        let Some(edge_index) = pick_edge(tree, node_id) else {
            break;
        };
        let edge = tree.edge(edge_index);
        let action = edge.action.load(Ordering::Relaxed);
        let step = advance(&mut position, rules, action, &mut turn);
        if action != END_TURN {
            match Action::unpack(action) {
                Some(action) => current.push(action),
                None => break,
            }
        }
        match step {
            Step::Invalid => break,
            Step::Ended(outcome) => {
                turns.push(std::mem::take(&mut current));
                if outcome != Outcome::Ongoing {
                    break;
                }
            }
            Step::Inside => {}
        }
        node_id = edge.child.load(Ordering::Acquire);
    }
    turns
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Piece;
    use crate::search::testing::position;

    /// A won middle game from an engine game where player 0's yellow fleet
    /// can reach player 1's home: after sacrificing a Y3, three yellow
    /// actions remain.
    fn after_a_yellow_sacrifice(rules: &Rules) -> Position {
        let mut start = position(
            &[
                ("y1b2", "r1r2g2g3", ""),
                ("r2b3", "", "r1r1g1g1g1"),
                ("g2", "y1y3", ""),
                ("g3", "y2y2y3", ""),
                ("y1", "y2y3", ""),
            ],
            0,
        );
        let large_yellow = Piece::parse("y3").unwrap();
        let mut sacrifice = None;
        start.for_each_action(rules, |action| {
            if matches!(action, Action::Sacrifice { ship, .. } if ship == large_yellow) {
                sacrifice.get_or_insert(action);
            }
        });
        start.try_apply(rules, sacrifice.unwrap()).unwrap();
        start
    }

    #[test]
    fn a_sacrifice_is_completed_not_thrown_away() {
        let rules = Rules::default();
        let inside = after_a_yellow_sacrifice(&rules);
        assert!(matches!(
            inside.turn_state(),
            TurnState::Sacrifice { remaining: 3, .. }
        ));
        let (rest, result) =
            complete_turn(&inside, &rules, &Tunables::default(), Repeats::default()).unwrap();
        assert!(!rest.is_empty(), "the sacrifice's actions were forfeited");
        let mut ended = inside;
        ended.end_turn(&rules).unwrap();
        let mover = inside.side_to_move();
        let score =
            |after: &Position| turn_score(after, Outcome::Ongoing, mover, &Tunables::default());
        assert!(score(&result) > score(&ended));
    }

    #[test]
    fn a_completion_does_not_walk_back_into_the_game() {
        let rules = Rules::default();
        let tunables = Tunables::default();
        let inside = after_a_yellow_sacrifice(&rules);
        let (_, greedy) = complete_turn(&inside, &rules, &tunables, Repeats::default()).unwrap();
        // The game has been at the greedy completion's result before.
        let history = [greedy.hash()];
        let repeats = Repeats {
            history: &history,
            draw: -0.6,
        };
        let (rest, result) = complete_turn(&inside, &rules, &tunables, repeats).unwrap();
        assert_ne!(result.hash(), greedy.hash(), "{rest:?}");
        let mover = inside.side_to_move();
        assert!(turn_score(&result, Outcome::Ongoing, mover, &tunables) > repeats.draw);
    }
}
