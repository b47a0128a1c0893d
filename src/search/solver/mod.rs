//! The exact tactical layer: can the side to move eliminate the opponent
//! this turn?
//!
//! Every safety guarantee of the engine rests on this answer (play a win when
//! one exists, never hand the opponent a win when a safe turn exists), so it
//! must be exact, and it must be fast because the tree asks it at every new
//! start-of-turn node. It works in two layers:
//!
//! 1. A bound ([`may_win`]), O(systems x colours), that never says "no" when
//!    a win exists. Elimination can only come from captures and catastrophes
//!    at the enemy home H: a capture needs an own ship at H already, and a
//!    catastrophe of colour k needs `4 - count(H, k)` more k pieces brought
//!    to H by moves (one per jump), builds or trades, depending on the core
//!    of the turn (basic action or a sacrifice of one colour). The catastrophes
//!    must cover either every colour of the defenders or every star colour.
//!    A ship that reaches H in one jump only once a catastrophe has taken
//!    a star of either home (the hyperspace bypass) pays for the pieces
//!    that catastrophe needs first. Most positions stop here.
//! 2. A depth-first search over single actions, memoised on the position hash
//!    (which includes the turn state) and pruned by the bound at every state.
//!    Actions that provably cannot matter are skipped: at the start of a turn
//!    a basic action that does not act on or move into H (a pass with the same
//!    catastrophes does at least as well); after a red sacrifice, captures
//!    outside the two homes; once the core is done, catastrophes outside H.
//!    Everything else is searched, so the answer is exact; tests compare it
//!    with brute force over every whole turn.
//!
//! A win requires the mover to survive: a turn that eliminates both players
//! is a draw and is not reported.
//!
//! # Who asks
//! - The tree, at every new start-of-turn node: a mover who can win is a
//!   proven win and the node is never expanded. The call is bounded
//!   ([`Solver::can_win_limited`]) and answers "unknown" past its states,
//!   so that one pathological node cannot stall a search.
//! - The leaf evaluation, whose threat term asks whether the opponent
//!   would win at once if the mover passed (`leaf_threat`), bounded too.
//!   With the call above that is two questions a new node, so most
//!   positions must stop at the bound.
//! - The root: a win at once is played at once; in check (the opponent
//!   wins at once after a pass) every turn is classified by whether the
//!   opponent then still wins at once, tens of thousands of calls in a
//!   big position.
//! - The two-turn checker (`search::threats`): proving an opponent's plan asks
//!   after every reply of the defender whether the attacker still wins at
//!   once, tens of thousands of calls a proof, nearly all of them with the
//!   same answer by the same winning turn.
//!
//! The last two are why the solver remembers its last winning turns and
//! replays them before searching, and why it keeps, for each, the
//! positions it is known to win from (`verified.rs`): the answers are the
//! same as a search's, at the cost of a few action checks, or of a key.
//!
//! # The files
//! This file holds the solver and its replays; `bound.rs` the bound;
//! `relevant.rs` the search's action filter; `verified.rs` the positions
//! known for each remembered win.

mod bound;
mod relevant;
mod verified;

pub(crate) use bound::may_win;

use crate::rules::{Action, Outcome, Position, Rules, TurnState};
use bound::may_win_keeping;
use relevant::collect_relevant;
use verified::Verified;

/// A cost that no budget can pay.
const UNREACHABLE: u32 = 1_000;

/// How many winning turns a solver remembers and replays before searching.
const REMEMBERED_WINS: usize = 4;

/// The exact win-in-1 solver, with reusable buffers. One per thread.
///
/// It also remembers the last few winning turns it found and replays them
/// (each action checked) before searching: callers ask about many positions
/// that differ in ways a win does not depend on (every turn of the side in
/// check, every reply to a threat), and a win that still works costs a few
/// action checks instead of a search. A replayed win is as exact as a found
/// one; the answers depend only on the order of calls. Where the win is
/// known to win from a position that agrees with this one on everything it
/// reads (`Verified`), not even the replay is made, with the same answer
/// and the same states counted.
pub struct Solver {
    visited: VisitedSet,
    path: Vec<Action>,
    /// Winning turns found, most recent first.
    wins: Vec<Vec<Action>>,
    buffers: Vec<Vec<(i32, Action)>>,
    states: u64,
    limit: u64,
    exhausted: bool,
    /// For each of the last few remembered wins, most recently used first,
    /// the positions it is known to win from, by what it reads of them.
    verified: Vec<Verified>,
    /// Whether `verified[0]` is known to be the front win's, so that the
    /// check before each of tens of thousands of replies in a proof need
    /// not compare the win action by action (a tenth of a proof's
    /// instructions). Cleared whenever another win comes to the front.
    front_verified: bool,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver {
            visited: VisitedSet::new(),
            path: Vec::with_capacity(16),
            wins: Vec::new(),
            buffers: Vec::new(),
            states: 0,
            limit: u64::MAX,
            exhausted: false,
            verified: Vec::new(),
            front_verified: false,
        }
    }
}

impl Solver {
    /// A winning completion of the current turn for the side to move, if any:
    /// the actions (possibly none) after which ending the turn eliminates the
    /// opponent while the mover survives. Exact.
    pub fn find_win(&mut self, position: &Position, rules: &Rules) -> Option<Vec<Action>> {
        self.limit = u64::MAX;
        self.run(position, rules).then(|| self.path.clone())
    }

    /// Whether the side to move can eliminate the opponent this turn. Exact.
    pub fn can_win(&mut self, position: &Position, rules: &Rules) -> bool {
        self.limit = u64::MAX;
        self.run(position, rules)
    }

    /// [`Solver::can_win`] for callers whose answer is mostly yes: the
    /// remembered wins are replayed before the cheap bound is computed.
    /// Classifying the turns in check asks it of every turn, and most leave
    /// the threat standing. The answer, and what the solver remembers, are
    /// the same as `can_win`'s: a replayed win exists only where the bound
    /// allows one.
    pub fn can_win_expected(&mut self, position: &Position, rules: &Rules) -> bool {
        self.limit = u64::MAX;
        self.run_replaying_first(position, rules, true)
    }

    /// Like [`Solver::can_win`] but gives up after visiting `limit` states,
    /// answering `None` (unknown). The tree uses it so that one pathological
    /// node cannot stall a search; an answer it does give is exact.
    pub fn can_win_limited(
        &mut self,
        position: &Position,
        rules: &Rules,
        limit: u64,
    ) -> Option<bool> {
        self.limited(position, rules, limit, false)
    }

    /// [`Solver::can_win_limited`] for callers whose answer is mostly yes,
    /// replaying the remembered wins first as [`Solver::can_win_expected`]
    /// does: proving that a two-turn plan forces a win asks it of every
    /// reply of the opponent, and each leaves the win standing.
    pub fn can_win_limited_expected(
        &mut self,
        position: &Position,
        rules: &Rules,
        limit: u64,
    ) -> Option<bool> {
        self.limited(position, rules, limit, true)
    }

    fn limited(
        &mut self,
        position: &Position,
        rules: &Rules,
        limit: u64,
        replay_first: bool,
    ) -> Option<bool> {
        self.limit = limit;
        let won = self.run_replaying_first(position, rules, replay_first);
        if won {
            Some(true)
        } else if self.exhausted {
            None
        } else {
            Some(false)
        }
    }

    /// Whether the opponent could eliminate the side to move if it passed:
    /// whether the side to move is "in check". Only meaningful at the start of
    /// a turn; exact.
    pub fn threatened(&mut self, position: &Position, rules: &Rules) -> bool {
        match passed(position, rules) {
            Some(after) => self.can_win(&after, rules),
            None => false,
        }
    }

    /// States visited by the last call, for profiling.
    pub fn states(&self) -> u64 {
        self.states
    }

    fn run(&mut self, position: &Position, rules: &Rules) -> bool {
        self.run_replaying_first(position, rules, false)
    }

    /// [`Solver::run`], replaying the remembered wins before the bound
    /// (`may_win`) when `replay_first`, after it otherwise.
    fn run_replaying_first(
        &mut self,
        position: &Position,
        rules: &Rules,
        replay_first: bool,
    ) -> bool {
        self.states = 0;
        self.exhausted = false;
        self.path.clear();
        if position.in_setup() {
            return false;
        }
        if replay_first {
            let key = self.verified_key(position, rules);
            if key.is_some_and(|key| self.verified[0].keys.contains(key)) {
                // The call ends exactly as a successful replay of the front
                // win would: one state, the win as the path.
                self.states += 1;
                self.path.extend_from_slice(&self.wins[0]);
                return true;
            }
            if self.replay_win(position, rules) {
                // The key was worked out for the front win before the
                // replay; another win may have won and come to the front.
                let same = key.is_some() && self.front_verified;
                if !same {
                    self.verify_front(rules, true);
                }
                let verified = &mut self.verified[0];
                let key = key
                    .filter(|_| same)
                    .unwrap_or_else(|| verified.key(position));
                verified.insert(key);
                return true;
            }
        }
        if !may_win(position, rules) {
            return false;
        }
        if !replay_first && self.replay_win(position, rules) {
            return true;
        }
        self.visited.clear();
        self.visited.insert(position.hash());
        let won = self.search(position, rules, 0);
        if won && position.turn_state() == TurnState::Start {
            self.wins.insert(0, self.path.clone());
            self.wins.truncate(REMEMBERED_WINS);
            self.front_verified = false;
        }
        won
    }

    /// The key of `position` in [`Verified`] when positions are known for
    /// the front remembered win under `rules` (their [`Verified`] is then
    /// moved to the front), so that a known key means the front win wins
    /// from `position`.
    fn verified_key(&mut self, position: &Position, rules: &Rules) -> Option<u64> {
        if position.turn_state() != TurnState::Start || !self.verify_front(rules, false) {
            return None;
        }
        let verified = &self.verified[0];
        (!verified.keys.is_empty()).then(|| verified.key(position))
    }

    /// Puts the front remembered win's [`Verified`] in front, made if new
    /// and `make`; whether there is one. A win that comes back to the front
    /// keeps what was known of it, since the checks go back and forth
    /// between two or three wins while refuting.
    fn verify_front(&mut self, rules: &Rules, make: bool) -> bool {
        if self.front_verified && self.verified[0].rules == *rules {
            return true;
        }
        let Some(win) = self.wins.first() else {
            return false;
        };
        match self
            .verified
            .iter()
            .position(|verified| verified.rules == *rules && verified.win == *win)
        {
            Some(index) => self.verified[..=index].rotate_right(1),
            None if make => {
                self.verified.insert(0, Verified::new(win, rules));
                self.verified.truncate(REMEMBERED_WINS);
            }
            None => return false,
        }
        self.front_verified = true;
        true
    }

    /// Whether a remembered winning turn still wins from `position` (a
    /// turn start); on success it becomes the path and moves to the front.
    fn replay_win(&mut self, position: &Position, rules: &Rules) -> bool {
        if position.turn_state() != TurnState::Start {
            return false;
        }
        let mover = position.side_to_move();
        for index in 0..self.wins.len() {
            self.states += 1;
            let mut replay = *position;
            let legal = self.wins[index]
                .iter()
                .all(|&action| replay.try_apply(rules, action).is_ok());
            if legal && replay.end_turn(rules) == Ok(Outcome::Win(mover)) {
                let win = self.wins.remove(index);
                self.front_verified &= index == 0;
                self.path.clear();
                self.path.extend_from_slice(&win);
                self.wins.insert(0, win);
                return true;
            }
        }
        false
    }

    fn search(&mut self, position: &Position, rules: &Rules, depth: usize) -> bool {
        self.states += 1;
        if self.states > self.limit {
            self.exhausted = true;
            return false;
        }
        let mut covers = None;
        if !may_win_keeping(position, &mut covers) {
            return false;
        }
        let mover = position.side_to_move();
        let mut ended = *position;
        if let Ok(Outcome::Win(winner)) = ended.end_turn(rules) {
            if winner == mover {
                return true;
            }
        }
        if self.buffers.len() <= depth {
            self.buffers.push(Vec::with_capacity(64));
        }
        let mut actions = std::mem::take(&mut self.buffers[depth]);
        actions.clear();
        collect_relevant(position, rules, covers, &mut actions);
        // Most promising first; ties keep generation order (the order score
        // carries the index in its low bits), so the search is deterministic.
        actions.sort_unstable_by_key(|&(order, _)| std::cmp::Reverse(order));
        let mut found = false;
        for &(_, action) in actions.iter() {
            let mut child = *position;
            child.apply_unchecked(rules, action);
            if !self.visited.insert(child.hash()) {
                continue;
            }
            self.path.push(action);
            if self.search(&child, rules, depth + 1) {
                found = true;
                break;
            }
            self.path.pop();
            if self.exhausted {
                break;
            }
        }
        self.buffers[depth] = actions;
        found
    }
}

/// The position after the side to move passes, if passing is possible and
/// leaves the game going.
pub(crate) fn passed(position: &Position, rules: &Rules) -> Option<Position> {
    if position.in_setup() || position.turn_state() != TurnState::Start {
        return None;
    }
    let mut after = *position;
    match after.end_turn(rules) {
        Ok(Outcome::Ongoing) => Some(after),
        _ => None,
    }
}
/// A set of 64-bit keys cleared in O(1) by bumping a generation stamp, so
/// that thousands of small solver calls do not each wipe a table.
struct VisitedSet {
    keys: Vec<u64>,
    stamps: Vec<u32>,
    generation: u32,
    len: usize,
}

impl VisitedSet {
    fn new() -> VisitedSet {
        VisitedSet {
            keys: vec![0; 256],
            stamps: vec![0; 256],
            generation: 1,
            len: 0,
        }
    }

    fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamps.fill(0);
            self.generation = 1;
        }
    }

    fn insert(&mut self, key: u64) -> bool {
        if (self.len + 1) * 2 > self.keys.len() {
            self.grow();
        }
        let mask = self.keys.len() - 1;
        let mut index = (key as usize ^ (key >> 32) as usize) & mask;
        loop {
            if self.stamps[index] != self.generation {
                self.stamps[index] = self.generation;
                self.keys[index] = key;
                self.len += 1;
                return true;
            }
            if self.keys[index] == key {
                return false;
            }
            index = (index + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let live: Vec<u64> = self
            .keys
            .iter()
            .zip(&self.stamps)
            .filter(|(_, &stamp)| stamp == self.generation)
            .map(|(&key, _)| key)
            .collect();
        let size = self.keys.len() * 2;
        self.keys = vec![0; size];
        self.stamps = vec![0; size];
        self.generation = 1;
        self.len = 0;
        for key in live {
            self.insert(key);
        }
    }
}

#[cfg(test)]
mod tests;
