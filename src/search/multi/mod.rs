//! The multi-player search: a max-n Monte Carlo tree search with exact
//! checks at the root, a greedy player, and a random player to measure it
//! against. The engine layer's [`crate::engine::multi`] drives it for the
//! protocol; the match tools call it directly.
//!
//! **Max-n.** Every node keeps one value per seat, the share of the game
//! that seat is expected to get, and each player picks the child that is
//! best for themselves (UCT on their own share). Edges are single actions
//! plus "end the turn", as in the two-player search, so a node's mover is
//! the side to move of its position. A leaf is scored by the hand
//! evaluation of [`evaluate`]: pips, the home's defenders and stars, the
//! colours at hand, enemy ships that can capture at home, one's own ships
//! that others can capture, and a colour one piece from a catastrophe at
//! home, turned into shares in proportion to the squared strengths (a
//! decided game gives its winners equal shares). Random playouts before the
//! evaluation are an option (`playout_turns`) but off: random Homeworlds
//! turns mostly wreck a position, so they blur the evaluation rather than
//! sharpen it.
//!
//! **Paranoid search** (`paranoid`) is the other classic rule for more than
//! two players: every other player is assumed to minimise the searcher's
//! share. Under both explicit victory conditions it scored the same as
//! max-n within noise (99 games each), so max-n is the default and paranoid
//! stays an option for measurement.
//!
//! **Exact checks at the root** ([`turns`], [`safety`]): the tree sees a
//! win or a threat only where its playouts happen to reach, so the root
//! also looks at every distinct whole turn. A win in one (the one with the
//! fewest actions) is played at once without searching, and the tree's
//! choice is replaced when it leaves the mover out of the game or lets
//! another player make the mover lose before its next turn: the next
//! player with any turn, or a later player on the board as the turn leaves
//! it (the players in between passing), within a budget of listed
//! positions ([`safety`] says exactly what is covered), as long as a turn
//! without that flaw exists among the best-evaluated ones. A deterministic
//! player can also fall into a cycle (two players recapturing one ship
//! forever); given the positions its turns already led to from here, the
//! root leaves such a cycle for the best safe turn that leads somewhere
//! new.
//!
//! **Hidden alignments.** Good versus Evil hides who is Evil: the search
//! knows only its own alignment and those revealed by eliminations
//! ([`hidden`]), and searches several determinizations (the hidden
//! alignments dealt consistently with what is known), choosing the turn
//! most of them choose.
//!
//! **The greedy player** ([`greedy_turn`]) is one ply by the same
//! evaluation with the safety rule on the next player only, like the
//! two-player greedy player: the baseline the search is measured against,
//! kept as it was so that tables stay comparable.
//!
//! **Threads** ([`tree`]): with `threads` above one, each thread grows a
//! tree of its own and the turn is read from their summed visits (root
//! parallelism); one thread is the search as it was, deterministic with a
//! fixed seed and a node limit.
//!
//! **Why it is apart from the two-player search.** A `Vec` of nodes,
//! positions cloned into the nodes: the two-player search's speed comes
//! from its packed 128-byte position, on which its shared parallel tree,
//! memory recycling, threat checks and solver are built, and that packing
//! does not extend to more players (see [`crate::rules::multi`]). Sharing
//! one generic tree would put a game-type parameter through the two-player
//! hot path. It never prints.
//!
//! **Bounds.** The playouts end at the node limit, at the deadline, when
//! the stop flag given with [`MultiSearch::with_stop`] is set (the engine's
//! `stop`, from another thread), or when a tree reaches [`MAX_TREE_NODES`],
//! whichever comes first (with several threads, each tree at its share of
//! the nodes and of that bound); the turn is then chosen from the trees as
//! grown.

pub mod evaluate;
pub mod hidden;
pub mod safety;
pub mod tree;
pub mod turns;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::rules::multi::{MultiAction, MultiOutcome, MultiPosition, Seat, Victory};
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
    /// Rounds of random turns a playout plays before the evaluation scores
    /// the position (0: the evaluation scores the leaf itself).
    pub playout_turns: u32,
    /// Whether the exact checks run at the root (an immediate win, and no
    /// turn that lets another player make the mover lose before its next
    /// turn when a safe one exists).
    pub safety: bool,
    /// How many alignments the search deals when they are hidden (Good
    /// versus Evil); the playouts are split between them.
    pub determinizations: u32,
    /// When to stop the playouts, whatever `iterations` says (the
    /// protocol's clocks and `movetime`); `None` for a pure node limit,
    /// which keeps the search deterministic.
    pub deadline: Option<Instant>,
    /// Paranoid search: every other player is assumed to play against the
    /// searching player (minimising its share) instead of for themselves
    /// (max-n). It measured no stronger than max-n under either explicit
    /// victory condition, so it is off by default (see the module docs).
    pub paranoid: bool,
    /// Threads growing trees at once (the engine's `Threads`); one keeps
    /// the search deterministic under a node limit ([`tree`]).
    pub threads: usize,
    /// Whether the safety check looks at the players after the next as
    /// well as the next one ([`safety`]); off, it judges a turn by the
    /// next player's answers alone, as it once did (kept for measurement).
    /// Never under Sinister: there the hunter nearly always has a threat on
    /// the board, the check kept replacing the tree's attacks by passive
    /// turns, and it scored 21.8 points to 76.8 against the same search
    /// without it (100 three-player games, 300 playouts, with a greedy
    /// third seat).
    pub later_safety: bool,
}

impl Default for MultiSearchOptions {
    fn default() -> MultiSearchOptions {
        MultiSearchOptions {
            iterations: 2_000,
            seed: 1,
            exploration: 0.7,
            playout_turns: 0,
            safety: true,
            determinizations: 4,
            deadline: None,
            paranoid: false,
            threads: 1,
            later_safety: true,
        }
    }
}

/// Keeps only the [`sensible_setup`] actions, unless none is: a position
/// whose every creation looks poor still has its legal ones searched.
pub(crate) fn keep_sensible_setups(actions: &mut Vec<MultiAction>) {
    if actions.iter().any(|&action| sensible_setup(action)) {
        actions.retain(|&action| sensible_setup(action));
    }
}

/// Whether a homeworld creation is one worth searching: a Large ship, two
/// stars of different sizes and colours, and yellow or blue among the three
/// (a home without them can never move or trade). Other actions are kept;
/// the hundreds of creations would otherwise swamp the first turn.
pub(crate) fn sensible_setup(action: MultiAction) -> bool {
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

/// The most nodes one tree grows to: the playouts end there as at a node
/// limit. A node holds its position and its edges (about 400 bytes at
/// three players), and one playout adds one, so a search told to run
/// without end (`go nodes 18446744073709551615`, clamped to `u32::MAX`
/// playouts) grew by about 45 MB a second; this keeps one tree near
/// 400 MB, about ten seconds of playouts on one core, far beyond any turn's
/// search in a match.
pub const MAX_TREE_NODES: usize = 1 << 20;

/// Positions looked at inside the mover's own turn by the root checks.
const ROOT_TURN_LIMIT: usize = 6_000;

/// On the clock, the share of the time the tree takes: the root's safety
/// checks come after it (the later players' checks can list over a
/// hundred thousand positions) and the answer is due at the deadline.
pub(crate) const TREE_TIME_SHARE: f32 = 0.8;
/// The winning turn with the fewest actions (the first such), if any.
fn shortest_win(candidates: &[turns::WholeTurn], mover: Seat) -> Option<&turns::WholeTurn> {
    candidates
        .iter()
        .filter(|turn| turns::has_won(&turn.result, mover))
        .min_by_key(|turn| turn.actions.len())
}

/// The position after `actions` and the end of the turn, if legal.
fn result_of(
    position: &MultiPosition,
    rules: &Rules,
    actions: &[MultiAction],
) -> Option<MultiPosition> {
    let mut result = position.clone();
    for &action in actions {
        result.try_apply(rules, action).ok()?;
    }
    result.end_turn(rules).ok()?;
    Some(result)
}

/// One ply of lookahead by the hand evaluation, like the two-player
/// greedy player: a win at once if there is one, else the best-evaluated
/// turn after which the next player cannot make the mover lose (among the
/// first few by evaluation), else the best-evaluated turn that keeps the
/// mover in the game. The baseline the search is measured against.
pub fn greedy_turn(position: &MultiPosition, rules: &Rules) -> Vec<MultiAction> {
    greedy_turn_avoiding(position, rules, &[])
}

/// [`greedy_turn`], leaving a cycle: a turn whose result is in `avoid` is
/// replaced as [`MultiSearch::best_turn_avoiding`] says.
pub fn greedy_turn_avoiding(
    position: &MultiPosition,
    rules: &Rules,
    avoid: &[u64],
) -> Vec<MultiAction> {
    let mover = position.side_to_move();
    let mut candidates = turns::whole_turns(position, rules, ROOT_TURN_LIMIT);
    if let Some(win) = shortest_win(&candidates, mover) {
        return win.actions.clone();
    }
    let score = |turn: &turns::WholeTurn| {
        let alive = if turns::has_lost(&turn.result, mover) {
            0.0
        } else {
            1.0
        };
        alive + evaluate::evaluated_shares(&turn.result)[mover as usize]
    };
    let mut best: Option<(&turns::WholeTurn, f64)> = None;
    for turn in &candidates {
        let value = score(turn);
        if best.is_none_or(|(_, best_value)| value > best_value) {
            best = Some((turn, value));
        }
    }
    let chosen = best
        .map(|(turn, _)| turn.actions.clone())
        .unwrap_or_default();
    // The baseline keeps the next-player check alone, so that it stays the
    // player earlier tables measured against.
    let safe = safety::safe_choice(position, rules, chosen, &mut candidates, false, None);
    safety::fresh_choice(position, rules, safe, &mut candidates, avoid, false, None)
}

/// The search: build it per turn with [`MultiSearch::new`] and call
/// [`MultiSearch::best_turn`].
pub struct MultiSearch {
    options: MultiSearchOptions,
    random: SmallRng,
    report: MultiReport,
    /// Set from another thread to end the playouts early, as the deadline
    /// does (the protocol's `stop`).
    stop: Option<Arc<AtomicBool>>,
}

/// What the last [`MultiSearch::best_turn`] found, for the protocol's
/// `info` line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MultiReport {
    /// Playouts run over all trees.
    pub nodes: u64,
    /// The root's expected share per seat (of the last tree searched);
    /// all zero when the turn was decided without searching.
    pub shares: evaluate::Shares,
    /// Why the turn was chosen: `search`, `win` (a win in one), `only`
    /// (the only turn), `safety` (the tree's choice was unsafe), `cycle`
    /// (it led back where this player's turns already led).
    pub decision: &'static str,
}

impl MultiSearch {
    /// A search with these options.
    pub fn new(options: MultiSearchOptions) -> MultiSearch {
        MultiSearch {
            options,
            random: SmallRng::seed_from_u64(options.seed),
            report: MultiReport::default(),
            stop: None,
        }
    }

    /// The search, ended early when `stop` is set: the playouts stop as at
    /// the deadline, and the turn is chosen from the tree grown so far.
    /// The root's exact checks are bounded and run to their end.
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> MultiSearch {
        self.stop = Some(stop);
        self
    }

    /// What the last search found.
    pub fn report(&self) -> MultiReport {
        self.report
    }

    /// The turn the side to move should play: the actions, in order (the
    /// caller ends the turn). Empty only when the game is over. With
    /// `safety`, a win in one is taken at once and the tree's choice is
    /// checked as the module docs say; with hidden alignments the search
    /// runs over determinizations.
    pub fn best_turn(&mut self, position: &MultiPosition, rules: &Rules) -> Vec<MultiAction> {
        self.best_turn_avoiding(position, rules, &[])
    }

    /// [`MultiSearch::best_turn`], leaving a cycle: when the chosen turn
    /// leads to a position in `avoid` (hashes of the positions this
    /// player's turns already led to from this one), the best-evaluated
    /// safe turn that leads somewhere new replaces it, if there is one.
    /// The engine passes what it played before from the same position in
    /// the same game.
    pub fn best_turn_avoiding(
        &mut self,
        position: &MultiPosition,
        rules: &Rules,
        avoid: &[u64],
    ) -> Vec<MultiAction> {
        if position.outcome() != MultiOutcome::Ongoing {
            return Vec::new();
        }
        let mover = position.side_to_move();
        self.report = MultiReport {
            decision: "search",
            ..MultiReport::default()
        };
        let mut root_turns = if self.options.safety {
            let turns = turns::whole_turns(position, rules, ROOT_TURN_LIMIT);
            if let Some(win) = shortest_win(&turns, mover) {
                self.report.decision = "win";
                return win.actions.clone();
            }
            if turns.len() == 1 {
                self.report.decision = "only";
                return turns[0].actions.clone();
            }
            turns
        } else {
            Vec::new()
        };
        // On the clock the tree leaves the rest of the time to the checks.
        let overall = self.options.deadline;
        if let Some(deadline) = overall {
            let started = Instant::now();
            let left = deadline.saturating_duration_since(started);
            self.options.deadline = Some(started + left.mul_f32(TREE_TIME_SHARE));
        }
        let chosen = match position.victory() {
            Victory::GoodVersusEvil { .. } => self.determinized_turn(position, rules),
            _ => self.tree_turn(position, rules, self.options.iterations),
        };
        self.options.deadline = overall;
        if !self.options.safety {
            return chosen;
        }
        // Under Sinister the later players' check measured far weaker (see
        // `later_safety`), so it looks at the next player only there.
        let later = self.options.later_safety && position.victory() != Victory::Sinister;
        let safe = safety::safe_choice(
            position,
            rules,
            chosen.clone(),
            &mut root_turns,
            later,
            overall,
        );
        if safe != chosen {
            self.report.decision = "safety";
        }
        let fresh = safety::fresh_choice(
            position,
            rules,
            safe.clone(),
            &mut root_turns,
            avoid,
            later,
            overall,
        );
        if fresh != safe {
            self.report.decision = "cycle";
        }
        fresh
    }

    /// The most common choice of trees searched over alignments dealt
    /// consistently with what the mover knows ([`hidden::deal`]); ties go to
    /// the first dealt.
    fn determinized_turn(&mut self, position: &MultiPosition, rules: &Rules) -> Vec<MultiAction> {
        let deals = self.options.determinizations.max(1);
        let share = (self.options.iterations / deals).max(1);
        let overall = self.options.deadline;
        let started = Instant::now();
        let mut votes: Vec<(Vec<MultiAction>, u32)> = Vec::new();
        for deal in 0..deals {
            if let Some(end) = overall {
                let slice = end.saturating_duration_since(started) / deals;
                self.options.deadline = Some(started + slice * (deal + 1));
            }
            let dealt = hidden::deal(position, position.side_to_move(), &mut self.random);
            let turn = self.tree_turn(&dealt, rules, share);
            match votes.iter_mut().find(|(other, _)| *other == turn) {
                Some((_, count)) => *count += 1,
                None => votes.push((turn, 1)),
            }
        }
        self.options.deadline = overall;
        let best = votes.iter().map(|(_, count)| *count).max().unwrap_or(0);
        votes
            .into_iter()
            .find(|(_, count)| *count == best)
            .map(|(turn, _)| turn)
            .unwrap_or_default()
    }

    /// The tree's choice after `iterations` playouts, over `threads` trees
    /// ([`tree`]).
    fn tree_turn(
        &mut self,
        position: &MultiPosition,
        rules: &Rules,
        iterations: u32,
    ) -> Vec<MultiAction> {
        let growth = tree::Growth {
            exploration: self.options.exploration,
            playout_turns: self.options.playout_turns,
            paranoid: self.options.paranoid,
            stop: self.stop.as_deref(),
            deadline: self.options.deadline,
        };
        let trees = tree::grow_trees(
            position,
            rules,
            iterations,
            self.options.threads,
            &mut self.random,
            &growth,
        );
        let (nodes, shares) = tree::root_report(&trees);
        self.report.nodes += nodes;
        self.report.shares = shares;
        tree::chosen_turn(&trees, position.side_to_move())
    }
}
