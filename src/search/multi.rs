//! A simple max-n Monte Carlo tree search for multi-player games (issue 10,
//! section 4), and a random player to measure it against.
//!
//! Max-n: every node keeps one value per seat, the share of the game that
//! seat is expected to get, and each player picks the child that is best for
//! themselves (UCT on their own share). Edges are single actions plus "end
//! the turn", as in the two-player search, so a node's mover is the side to
//! move of its position. A playout plays random turns for a few rounds and
//! then scores the position: a decided game gives its winners equal shares;
//! an open one gives each player still in the game a share proportional to
//! the pips of their fleet, their home's defence weighing double.
//!
//! It is deliberately plain (one thread, a `Vec` of nodes, positions cloned
//! into the nodes): the two-player search's speed comes from its packed
//! position, which does not extend to more players (see
//! [`crate::rules::multi`]). It never prints.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::rules::multi::{MultiAction, MultiOutcome, MultiPosition, MAX_PLAYERS};
use crate::rules::{Action, Colour, Rules, TurnState};

/// One choice in a turn: an action, or ending the turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MultiEdge {
    /// Play this action and stay in the turn.
    Act(MultiAction),
    /// End the turn here.
    End,
}

/// How long and how wide the search looks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MultiSearchOptions {
    /// Playouts per search.
    pub iterations: u32,
    /// Seed of the playouts' random choices: equal seeds give equal turns.
    pub seed: u64,
    /// The UCT exploration constant.
    pub exploration: f64,
    /// Whole turns a playout plays before scoring the position.
    pub playout_turns: u32,
}

impl Default for MultiSearchOptions {
    fn default() -> MultiSearchOptions {
        MultiSearchOptions {
            iterations: 2_000,
            seed: 1,
            exploration: 0.7,
            playout_turns: 6,
        }
    }
}

/// Shares of the game by seat; they sum to 1 over the players.
type Shares = [f64; MAX_PLAYERS];

struct Node {
    position: MultiPosition,
    edges: Vec<(MultiEdge, Option<usize>)>,
    visits: u32,
    totals: Shares,
}

impl Node {
    fn new(position: MultiPosition, rules: &Rules) -> Node {
        let edges = edges(&position, rules)
            .into_iter()
            .map(|edge| (edge, None))
            .collect();
        Node {
            position,
            edges,
            visits: 0,
            totals: [0.0; MAX_PLAYERS],
        }
    }
}

/// The choices at a position: its legal actions, and ending the turn where
/// the turn may end (not at its start, where ending is the `Pass` action,
/// and not where the rules refuse the end).
fn edges(position: &MultiPosition, rules: &Rules) -> Vec<MultiEdge> {
    if position.outcome() != MultiOutcome::Ongoing {
        return Vec::new();
    }
    let mut actions = Vec::new();
    position.legal_actions(rules, &mut actions);
    let sensible: Vec<MultiAction> = actions
        .iter()
        .copied()
        .filter(|&action| sensible_setup(action))
        .collect();
    if !sensible.is_empty() {
        actions = sensible;
    }
    let mut edges: Vec<MultiEdge> = actions.into_iter().map(MultiEdge::Act).collect();
    if position.turn_state() != TurnState::Start && position.clone().end_turn(rules).is_ok() {
        edges.push(MultiEdge::End);
    }
    edges
}

/// Whether a homeworld creation is one worth searching: a Large ship, two
/// stars of different sizes and colours, and yellow or blue among the three
/// (a home without them can never move or trade). Other actions are kept;
/// the hundreds of creations would otherwise swamp the first turn.
fn sensible_setup(action: MultiAction) -> bool {
    let MultiAction::Plain(Action::Homeworld {
        star,
        second_star: Some(second),
        ship,
    }) = action
    else {
        return !matches!(action, MultiAction::Plain(Action::Homeworld { .. }));
    };
    let mobile = [star, second, ship]
        .iter()
        .any(|piece| matches!(piece.colour(), Colour::Yellow | Colour::Blue));
    ship.size() == 3 && star.size() != second.size() && star.colour() != second.colour() && mobile
}

/// Plays an edge on a copy of `position`.
fn play(position: &MultiPosition, rules: &Rules, edge: MultiEdge) -> MultiPosition {
    let mut next = position.clone();
    match edge {
        MultiEdge::Act(action) => next.apply_unchecked(rules, action),
        MultiEdge::End => {
            // The edge list only offers ends the rules accept.
            let _ = next.end_turn(rules);
        }
    }
    next
}

/// Each player's share of a position: exact once the game is decided,
/// otherwise by fleet strength.
pub fn shares(position: &MultiPosition) -> [f64; MAX_PLAYERS] {
    let mut shares = [0.0; MAX_PLAYERS];
    let players = position.players();
    match position.outcome() {
        MultiOutcome::Win(winners) => {
            for seat in winners.iter() {
                shares[seat as usize] = 1.0 / winners.len() as f64;
            }
            return shares;
        }
        MultiOutcome::Draw => {
            shares[..players].fill(1.0 / players as f64);
            return shares;
        }
        MultiOutcome::Ongoing => {}
    }
    let in_game = position.in_game();
    for slot in position.occupied_slots() {
        let system = position.system(slot);
        for seat in in_game.iter() {
            let pips: u32 = system.ships[seat as usize]
                .copies()
                .map(|piece| piece.size() as u32)
                .sum();
            let weight = if slot == seat { 2.0 } else { 1.0 };
            shares[seat as usize] += weight * pips as f64;
        }
    }
    for seat in in_game.iter() {
        shares[seat as usize] += 1.0;
    }
    let total: f64 = shares.iter().sum();
    if total > 0.0 {
        for share in &mut shares {
            *share /= total;
        }
    }
    shares
}

/// Plays a random turn: random legal actions, ending the turn now and then
/// (a pass where the rules refuse the end). Returns the actions played.
pub fn random_turn(
    position: &mut MultiPosition,
    rules: &Rules,
    random: &mut SmallRng,
) -> Vec<MultiAction> {
    let start = position.clone();
    let mut played = Vec::new();
    let mut actions = Vec::new();
    loop {
        position.legal_actions(rules, &mut actions);
        let mover = position.side_to_move();
        let can_end =
            position.turn_state() != TurnState::Start || position.created().contains(mover);
        if actions.is_empty() || can_end && random.random_bool(0.4) {
            break;
        }
        let action = actions[random.random_range(0..actions.len())];
        position.apply_unchecked(rules, action);
        played.push(action);
    }
    if position.end_turn(rules).is_err() {
        // The rules refuse this end (a forbidden self-elimination): pass.
        *position = start;
        let pass = MultiAction::Plain(Action::Pass);
        position.apply_unchecked(rules, pass);
        played = vec![pass];
        let _ = position.end_turn(rules);
    }
    played
}

/// The search: build it per turn with [`MultiSearch::new`] and call
/// [`MultiSearch::best_turn`].
pub struct MultiSearch {
    options: MultiSearchOptions,
    random: SmallRng,
}

impl MultiSearch {
    /// A search with these options.
    pub fn new(options: MultiSearchOptions) -> MultiSearch {
        MultiSearch {
            options,
            random: SmallRng::seed_from_u64(options.seed),
        }
    }

    /// The turn the side to move should play: the actions, in order (the
    /// caller ends the turn). Empty only when the game is over.
    pub fn best_turn(&mut self, position: &MultiPosition, rules: &Rules) -> Vec<MultiAction> {
        let mut nodes = vec![Node::new(position.clone(), rules)];
        for _ in 0..self.options.iterations.max(1) {
            self.iterate(&mut nodes, rules);
        }
        let mover = position.side_to_move();
        let mut turn = Vec::new();
        let mut index = 0;
        loop {
            let node = &nodes[index];
            let best = node
                .edges
                .iter()
                .filter_map(|&(edge, child)| child.map(|child| (edge, child)))
                .max_by_key(|&(_, child)| nodes[child].visits);
            match best {
                Some((MultiEdge::Act(action), child))
                    if nodes[child].position.side_to_move() == mover =>
                {
                    turn.push(action);
                    index = child;
                }
                Some((MultiEdge::End, _)) => break,
                _ => {
                    // Unexplored here: end if the turn may end, else take
                    // the first legal choice that keeps the turn going.
                    let position = &nodes[index].position;
                    if position.turn_state() == TurnState::Start {
                        if let Some(MultiEdge::Act(action)) =
                            edges(position, rules).into_iter().next()
                        {
                            turn.push(action);
                        }
                    }
                    break;
                }
            }
        }
        turn
    }

    /// One playout: select by each mover's UCT, expand one node, play
    /// random turns, score, and add the shares along the path.
    fn iterate(&mut self, nodes: &mut Vec<Node>, rules: &Rules) {
        let mut path = vec![0];
        let mut index = 0;
        loop {
            let node = &nodes[index];
            if node.edges.is_empty() {
                break;
            }
            let mover = node.position.side_to_move() as usize;
            let unexplored: Vec<usize> = (0..node.edges.len())
                .filter(|&edge| node.edges[edge].1.is_none())
                .collect();
            if !unexplored.is_empty() {
                let edge = unexplored[self.random.random_range(0..unexplored.len())];
                let child = Node::new(play(&node.position, rules, node.edges[edge].0), rules);
                nodes.push(child);
                let child_index = nodes.len() - 1;
                nodes[index].edges[edge].1 = Some(child_index);
                path.push(child_index);
                index = child_index;
                break;
            }
            let parent_visits = (node.visits.max(1) as f64).ln();
            let exploration = self.options.exploration;
            let (_, best) = node
                .edges
                .iter()
                .filter_map(|&(_, child)| child)
                .map(|child| {
                    let child_node = &nodes[child];
                    let visits = child_node.visits.max(1) as f64;
                    let value = child_node.totals[mover] / visits
                        + exploration * (parent_visits / visits).sqrt();
                    (value, child)
                })
                .fold((f64::MIN, 0), |best, candidate| {
                    if candidate.0 > best.0 {
                        candidate
                    } else {
                        best
                    }
                });
            path.push(best);
            index = best;
        }
        let mut position = nodes[index].position.clone();
        for _ in 0..self.options.playout_turns * position.players() as u32 {
            if position.outcome() != MultiOutcome::Ongoing {
                break;
            }
            random_turn(&mut position, rules, &mut self.random);
        }
        let result = shares(&position);
        for &visited in &path {
            let node = &mut nodes[visited];
            node.visits += 1;
            for (total, share) in node.totals.iter_mut().zip(result) {
                *total += share;
            }
        }
    }
}
