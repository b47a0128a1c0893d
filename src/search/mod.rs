//! The engine: a parallel Monte Carlo tree search over single actions, with
//! exact win-in-1 and safety checks at the root, and two simple players.
//!
//! # Using it
//! Build a [`Searcher`] from [`SearchOptions`], then call
//! [`Searcher::search`] with the position, the hashes of the earlier
//! start-of-turn positions of the game (for repetition), the limits and a
//! stop flag. It returns the turn to play as a list of [`Action`]s; it never
//! prints and never formats text. Progress is reported through the
//! `on_info` callback, called on the calling thread.
//!
//! # Guarantees (exact, not sampled)
//! For the default `mcts` player and for `greedy`:
//! - if a turn eliminates the opponent at once, it is played;
//! - no turn is played after which the opponent can eliminate the mover at
//!   once, if any turn exists that avoids it (a mutual elimination, a draw,
//!   is chosen only when every other turn loses so);
//! - the returned turn is legal: it replays on the rules core and can end.
//!
//! # Threads and determinism
//! A `Searcher` is `Send`; one search runs at a time (`&mut self`). Worker
//! threads are scoped to a search and borrow the tree; the stop flag may be
//! set from any thread and ends the search within a few iterations. With
//! `threads = 1` and a node limit (no time limit), results are bit-identical
//! from run to run for the same options, seed and sequence of searches. With
//! more threads, results vary from run to run.
//!
//! # Options for the protocol layer
//! Everything a user may want to set is in [`SearchOptions`]: threads,
//! `hash_mb`, seed, multi-PV, the player (`mcts`, `greedy`, `random`), the
//! rules profile, and every evaluation and search parameter as a
//! [`Tunables`] table. [`TUNABLES`] lists each parameter with its name,
//! default, range and purpose, and [`Tunables::set`] sets one by name with a
//! range check, so each can be exposed as an engine option as is.
//!
//! # Tree reuse and memory
//! The tree persists between searches: when the next position is found in
//! the tree (normally two turns below the last root), its subtree becomes the
//! new root and everything else is compacted away. [`Searcher::clear`]
//! forgets everything (a new game). The tree never uses more than about
//! `hash_mb` megabytes; when full it stops growing and keeps searching.

pub mod bench;
mod eval;
mod facts;
mod mcts;
mod players;
mod priors;
mod solver;
mod time;
mod tree;
pub mod tunables;

use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::rules::{Action, Outcome, Position, Rules};
use mcts::{Shared, TreeTurn, Worker};
use players::SafeTurns;
use tree::{Tree, PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN, UNPROVEN};

pub use players::{book_score, setup_actions};
pub use solver::Solver;
pub use tunables::{Tunable, TunableError, TunableSpec, Tunables, TUNABLES};

/// Which player the searcher is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PlayerKind {
    /// The Monte Carlo tree search (the engine proper).
    #[default]
    Mcts,
    /// One turn of lookahead with the same evaluation and safety checks; a
    /// baseline to measure the tree search against.
    Greedy,
    /// A uniformly random distinct legal turn; the weakest baseline.
    Random,
}

impl PlayerKind {
    /// The option value naming this player.
    pub fn name(self) -> &'static str {
        match self {
            PlayerKind::Mcts => "mcts",
            PlayerKind::Greedy => "greedy",
            PlayerKind::Random => "random",
        }
    }
}

impl FromStr for PlayerKind {
    type Err = String;

    fn from_str(text: &str) -> Result<PlayerKind, String> {
        [PlayerKind::Mcts, PlayerKind::Greedy, PlayerKind::Random]
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(text))
            .ok_or_else(|| format!("unknown player '{text}': expected mcts, greedy or random"))
    }
}

/// How a searcher is set up. Changing `hash_mb` needs a new searcher (or
/// [`Searcher::set_options`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Worker threads for one search (at least 1).
    pub threads: usize,
    /// Memory for the tree, in megabytes.
    pub hash_mb: usize,
    /// Seed for the random player and the setup book's choice among equals.
    pub seed: u64,
    /// How many candidate turns to report (multi-PV).
    pub multi_pv: usize,
    /// Which player to be.
    pub player: PlayerKind,
    /// The rules to play by.
    pub rules: Rules,
    /// Evaluation and search parameters.
    pub tunables: Tunables,
    /// How often `on_info` is called during a search.
    pub info_interval: Duration,
    /// Whether to keep the tree between searches.
    pub tree_reuse: bool,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            threads: 1,
            hash_mb: 64,
            seed: 0,
            multi_pv: 1,
            player: PlayerKind::Mcts,
            rules: Rules::STANDARD,
            tunables: Tunables::default(),
            info_interval: Duration::from_secs(1),
            tree_reuse: true,
        }
    }
}

/// A game clock: time left and increment per player (index = player).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left on each player's clock.
    pub time_left: [Duration; 2],
    /// Time added after each turn of each player.
    pub increment: [Duration; 2],
}

/// When to stop. Every limit given applies (the first reached stops the
/// search); with none at all, or `infinite`, only the stop flag does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// Iterations (playouts) to run in this search: exact with one thread;
    /// with more, threads count in batches of 16, so the search may run up to
    /// 16 iterations per thread past it.
    pub nodes: Option<u64>,
    /// Time for this turn.
    pub movetime: Option<Duration>,
    /// A game clock to budget from.
    pub clock: Option<Clock>,
    /// Search until stopped, ignoring the other limits.
    pub infinite: bool,
}

impl SearchLimits {
    /// A node (iteration) limit only: reproducible with one thread.
    pub fn nodes(nodes: u64) -> SearchLimits {
        SearchLimits {
            nodes: Some(nodes),
            ..SearchLimits::default()
        }
    }

    /// A fixed time per turn.
    pub fn movetime(time: Duration) -> SearchLimits {
        SearchLimits {
            movetime: Some(time),
            ..SearchLimits::default()
        }
    }
}

/// A proven game result, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Proof {
    /// The side to move wins with best play.
    Win,
    /// The side to move loses whatever it does.
    Loss,
    /// Best play draws.
    Draw,
}

fn proof_from(code: u8) -> Option<Proof> {
    match code {
        PROVEN_WIN => Some(Proof::Win),
        PROVEN_LOSS => Some(Proof::Loss),
        PROVEN_DRAW => Some(Proof::Draw),
        _ => None,
    }
}

/// One candidate turn (multi-PV entry).
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The turn's actions (empty = pass).
    pub turn: Vec<Action>,
    /// Visits the turn received.
    pub visits: u64,
    /// Value for the side to move, in [-1, 1].
    pub value: f32,
    /// `(value + 1) / 2`.
    pub win_probability: f32,
    /// A proven result after this turn, if any.
    pub proof: Option<Proof>,
}

/// Why the returned turn was chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Decision {
    /// The tree search's best turn, verified safe.
    #[default]
    Search,
    /// A turn that eliminates the opponent at once.
    ImmediateWin,
    /// The only turn after which the opponent cannot win at once.
    OnlySafeTurn,
    /// Every other turn loses at once; this one eliminates both players.
    ForcedDraw,
    /// The search's choice let the opponent win; this is the best safe turn instead.
    SafetyFallback,
    /// Every turn lets the opponent win at once.
    NoSafeTurn,
    /// A setup turn from the book (or a random one).
    Setup,
    /// The greedy player's choice.
    Greedy,
    /// The random player's choice.
    Random,
    /// The game is already over; there is no turn.
    GameOver,
}

/// Progress and results of a search, as reported through `on_info` and in
/// the final [`SearchResult`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchInfo {
    /// Time since the search started.
    pub elapsed: Duration,
    /// Iterations (playouts) run in this search: the "nodes" of the protocol.
    pub iterations: u64,
    /// Nodes in the tree (including those reused from earlier searches).
    pub tree_nodes: u64,
    /// Visits of the root (including reused ones).
    pub root_visits: u64,
    /// Iterations per second.
    pub nodes_per_second: f64,
    /// Mean depth of the iterations, in tree levels (actions).
    pub average_depth: f64,
    /// Deepest iteration, in tree levels.
    pub max_depth: u32,
    /// How full the tree is, in permille.
    pub hash_full: u32,
    /// Bytes of tree in use.
    pub tree_bytes: u64,
    /// The best turn so far (empty = pass).
    pub best_turn: Vec<Action>,
    /// Its value for the side to move, in [-1, 1].
    pub value: f32,
    /// `(value + 1) / 2`.
    pub win_probability: f32,
    /// A proven result for the side to move, if known.
    pub proof: Option<Proof>,
    /// The expected line, one entry per turn, starting with `best_turn`.
    pub principal_variation: Vec<Vec<Action>>,
    /// The best candidate turns, best first (at most `multi_pv`).
    pub candidates: Vec<Candidate>,
    /// Whether the opponent threatened to win at once at the root.
    pub in_check: bool,
}

/// The answer of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The turn to play (empty = pass; also empty when the game is over).
    pub best_turn: Vec<Action>,
    /// Its value for the side to move, in [-1, 1].
    pub value: f32,
    /// `(value + 1) / 2`.
    pub win_probability: f32,
    /// Why this turn.
    pub decision: Decision,
    /// Final statistics.
    pub info: SearchInfo,
}

/// The static evaluation of a position for the side to move, in [-1, 1],
/// with default tunables: the tree's leaf value. A win-in-1 for the side to
/// move scores 1, and a threat against it is taken into account.
pub fn static_evaluation(position: &Position, rules: &Rules) -> f32 {
    static_evaluation_with(position, rules, &Tunables::default())
}

/// [`static_evaluation`] with given tunables.
pub fn static_evaluation_with(position: &Position, rules: &Rules, tunables: &Tunables) -> f32 {
    if let Some(value) = eval::terminal_value(position) {
        if !position.in_setup() {
            return value;
        }
    }
    let mut solver = Solver::default();
    if solver.can_win(position, rules) {
        return 1.0;
    }
    let threat = solver.threatened(position, rules);
    eval::value(position, tunables, threat)
}

/// A search engine for one game at a time. See the module documentation.
pub struct Searcher {
    options: SearchOptions,
    tree: Tree,
    worker: Worker,
    solver: Solver,
    /// The turn index (from the tree's base) of the last root, if the tree holds one.
    last_turn: Option<u32>,
    /// Searches since the last `clear`, to vary the random player.
    searches: u64,
}

impl Searcher {
    /// A searcher with its tree allocated (lazily committed) up front.
    pub fn new(options: SearchOptions) -> Searcher {
        let tree = Tree::with_megabytes(options.hash_mb);
        Searcher {
            options,
            tree,
            worker: Worker::default(),
            solver: Solver::default(),
            last_turn: None,
            searches: 0,
        }
    }

    /// The current options.
    pub fn options(&self) -> &SearchOptions {
        &self.options
    }

    /// Replaces the options; reallocates the tree when the size changed.
    pub fn set_options(&mut self, options: SearchOptions) {
        if options.hash_mb != self.options.hash_mb {
            self.tree = Tree::with_megabytes(options.hash_mb);
            self.last_turn = None;
        } else if options.rules != self.options.rules || options.tunables != self.options.tunables {
            self.clear();
        }
        self.options = options;
    }

    /// Forgets the tree (a new game).
    pub fn clear(&mut self) {
        self.tree.clear();
        self.last_turn = None;
        self.searches = 0;
    }

    /// Bytes the tree may use at most.
    pub fn tree_capacity_bytes(&self) -> usize {
        self.tree.reserved_bytes()
    }

    /// Searches `position` and returns the turn to play.
    ///
    /// `history` holds the hashes ([`Position::hash`]) of the earlier
    /// start-of-turn positions of the game, in any order; a line that repeats
    /// one of them is scored as a draw. `stop` may be set from another thread
    /// to end the search early. `on_info` is called on this thread about every
    /// `info_interval`, and once at the end.
    pub fn search(
        &mut self,
        position: &Position,
        history: &[u64],
        limits: &SearchLimits,
        stop: &AtomicBool,
        mut on_info: impl FnMut(&SearchInfo),
    ) -> SearchResult {
        let start = Instant::now();
        let rules = self.options.rules;
        if !position.in_setup() && position.outcome() != Outcome::Ongoing {
            return simple_result(Vec::new(), 0.0, Decision::GameOver, start);
        }
        if position.in_setup() {
            let turn =
                players::setup_turn(position, &rules, self.options.player, self.options.seed);
            let result = simple_result(turn, 0.0, Decision::Setup, start);
            on_info(&result.info);
            return result;
        }
        let result = match self.options.player {
            PlayerKind::Random => {
                // The call count keeps a repeated position from getting the
                // same "random" turn every time, yet stays reproducible.
                self.searches += 1;
                let seed = self.options.seed ^ self.searches.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let turn = players::random_turn(position, &rules, seed);
                simple_result(turn, 0.0, Decision::Random, start)
            }
            PlayerKind::Greedy => {
                let choice =
                    players::greedy(position, &rules, &self.options.tunables, &mut self.solver);
                simple_result(choice.actions, choice.value, choice.decision, start)
            }
            PlayerKind::Mcts => {
                self.search_tree(position, history, limits, stop, &mut on_info, start)
            }
        };
        on_info(&result.info);
        result
    }

    fn search_tree(
        &mut self,
        position: &Position,
        history: &[u64],
        limits: &SearchLimits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
        start: Instant,
    ) -> SearchResult {
        let rules = self.options.rules;
        let tunables = self.options.tunables.clone();
        // 1. A win at once is played at once.
        if let Some(turn) = self.solver.find_win(position, &rules) {
            let mut result = simple_result(turn, 1.0, Decision::ImmediateWin, start);
            result.info.proof = Some(Proof::Win);
            return result;
        }
        // 2. In check: only turns after which the opponent cannot win are
        // searched. Listing them can take a while in big positions, so under
        // a time limit it gets a third of the soft limit; if it does not
        // finish, the search runs unrestricted and its choice is verified
        // below (with an exhaustive fallback), so the guarantee still holds.
        let in_check = self.solver.threatened(position, &rules);
        let plan = time::plan(
            limits,
            position.side_to_move(),
            history.len() / 2,
            &tunables,
        );
        let mut safe_turns = None;
        let mut filter = None;
        if in_check {
            let deadline = plan.soft.map(|soft| start + soft / 3);
            if let Some(analysis) =
                SafeTurns::new_until(position, &rules, &tunables, &mut self.solver, deadline)
            {
                if analysis.safe.is_empty() {
                    if let Some(&draw) = analysis.draws.first() {
                        let mut result = simple_result(
                            analysis.list.actions(draw).to_vec(),
                            0.0,
                            Decision::ForcedDraw,
                            start,
                        );
                        result.info.in_check = true;
                        return result;
                    }
                } else if analysis.safe.len() == 1 {
                    let index = analysis.safe[0];
                    let score = analysis.list.entries[index].score;
                    let mut result = simple_result(
                        analysis.list.actions(index).to_vec(),
                        score,
                        Decision::OnlySafeTurn,
                        start,
                    );
                    result.info.in_check = true;
                    return result;
                } else {
                    filter = Some(analysis.filter(position, &rules));
                }
                safe_turns = Some(analysis);
            }
        }
        // 3. The tree: reuse what matches, else start afresh.
        let mut sorted_history = history.to_vec();
        sorted_history.sort_unstable();
        let root_turn = self.prepare_root(position, filter.is_some());
        let Some(root) = self
            .worker
            .ensure_root(&self.tree, &rules, &tunables, position, root_turn)
        else {
            let choice = players::greedy(position, &rules, &tunables, &mut self.solver);
            return simple_result(choice.actions, choice.value, choice.decision, start);
        };
        self.last_turn = Some(root_turn);
        let node_limit = if limits.infinite {
            u64::MAX
        } else {
            limits.nodes.unwrap_or(u64::MAX)
        };
        let shared = Shared {
            tree: &self.tree,
            rules,
            tunables: &tunables,
            root,
            root_position: *position,
            root_turn,
            history: &sorted_history,
            root_filter: filter.as_deref(),
            stop,
            halt: AtomicBool::new(false),
            iterations: AtomicU64::new(0),
            depth_sum: AtomicU64::new(0),
            max_depth: AtomicU32::new(0),
            node_limit,
        };
        let mut controller = time::Controller::new(start, plan, node_limit, &tunables);
        let threads = self.options.threads.max(1);
        let info_interval = self.options.info_interval;
        let multi_pv = self.options.multi_pv.max(1);
        let worker = &mut self.worker;
        // With one thread the count is exact (flushed every iteration), so a
        // node limit is reproducible; with more, workers add in batches.
        let batch = if threads == 1 { 1 } else { 16 };
        worker.max_depth_reset();
        std::thread::scope(|scope| {
            for _ in 1..threads {
                let shared = &shared;
                scope.spawn(move || {
                    let mut helper = Worker::default();
                    while !shared.stopping() {
                        if shared.tree.node(shared.root).proof.load(Ordering::Relaxed) != UNPROVEN {
                            shared.halt.store(true, Ordering::Relaxed);
                            break;
                        }
                        helper.iterate(shared);
                        if helper.pending() >= batch && helper.flush(shared) >= shared.node_limit {
                            shared.halt.store(true, Ordering::Relaxed);
                        }
                    }
                    helper.flush(shared);
                });
            }
            let mut last_info = Instant::now();
            let mut since_check = 0;
            while !shared.stopping() {
                if shared.tree.node(root).proof.load(Ordering::Relaxed) != UNPROVEN {
                    break;
                }
                worker.iterate(&shared);
                since_check += 1;
                if worker.pending() >= batch && worker.flush(&shared) >= node_limit {
                    break;
                }
                if since_check >= 32 {
                    since_check = 0;
                    if controller.should_stop(&shared) {
                        break;
                    }
                    if last_info.elapsed() >= info_interval {
                        last_info = Instant::now();
                        let info = collect_info(&shared, start, multi_pv, in_check);
                        on_info(&info);
                    }
                }
            }
            shared.halt.store(true, Ordering::Relaxed);
            worker.flush(&shared);
        });
        let mut info = collect_info(&shared, start, multi_pv, in_check);
        // 4. Verify the choice; fall back to the best safe turn if needed.
        let candidates = mcts::candidate_turns(&self.tree, &rules, root, position, 16);
        let best = mcts::best_turn(&self.tree, &rules, &tunables, root, position);
        let mut decision = Decision::Search;
        let mover = position.side_to_move();
        let mut chosen: Option<(Vec<Action>, f32)> = None;
        let ordered = best.iter().chain(candidates.iter());
        for turn in ordered {
            let mut replay = *position;
            if !turn
                .actions
                .iter()
                .all(|&action| replay.try_apply(&rules, action).is_ok())
            {
                continue;
            }
            let Ok(outcome) = replay.end_turn(&rules) else {
                continue;
            };
            let safe = match outcome {
                Outcome::Win(winner) => winner == mover,
                Outcome::Draw => false,
                Outcome::Ongoing => match (&safe_turns, &filter) {
                    (Some(analysis), Some(_)) => {
                        let hash = replay.hash();
                        analysis
                            .safe
                            .iter()
                            .any(|&index| analysis.list.entries[index].result.hash() == hash)
                    }
                    _ => !self.solver.can_win(&replay, &rules),
                },
            };
            if safe {
                chosen = Some((turn.actions.clone(), turn.value));
                break;
            }
        }
        if chosen.is_none() {
            let analysis = match safe_turns.take() {
                Some(analysis) => analysis,
                None => SafeTurns::new(position, &rules, &tunables, &mut self.solver),
            };
            if let Some(&index) = analysis.wins.first().or(analysis.safe.first()) {
                decision = Decision::SafetyFallback;
                chosen = Some((
                    analysis.list.actions(index).to_vec(),
                    analysis.list.entries[index].score.clamp(-1.0, 1.0),
                ));
            } else if let Some(&draw) = analysis.draws.first() {
                decision = Decision::ForcedDraw;
                chosen = Some((analysis.list.actions(draw).to_vec(), 0.0));
            } else {
                decision = Decision::NoSafeTurn;
                chosen = best
                    .as_ref()
                    .map(|turn| (turn.actions.clone(), turn.value))
                    .or_else(|| {
                        analysis
                            .list
                            .by_score()
                            .first()
                            .map(|&index| (analysis.list.actions(index).to_vec(), -1.0))
                    });
            }
        }
        let (turn, value) = chosen.unwrap_or_default();
        if info.best_turn != turn {
            info.best_turn = turn.clone();
            info.value = value;
            info.win_probability = (value + 1.0) / 2.0;
            info.principal_variation = vec![turn.clone()];
        }
        SearchResult {
            best_turn: turn,
            value,
            win_probability: (value + 1.0) / 2.0,
            decision,
            info,
        }
    }

    /// Finds the root for `position` in the kept tree (the same turn, or one
    /// or two turns after the last root), compacting the tree around it, or
    /// clears the tree. Returns the root's turn index.
    fn prepare_root(&mut self, position: &Position, fresh: bool) -> u32 {
        if let (Some(last), true, false) = (self.last_turn, self.options.tree_reuse, fresh) {
            for delta in [2, 1, 0] {
                let turn = last + delta;
                if let Some(node) = self.tree.lookup(tree::node_key(position, turn)) {
                    self.tree.compact(node);
                    return turn;
                }
            }
        }
        self.tree.clear();
        self.last_turn = None;
        0
    }
}

/// A result that did not come from the tree.
fn simple_result(
    turn: Vec<Action>,
    value: f32,
    decision: Decision,
    start: Instant,
) -> SearchResult {
    let info = SearchInfo {
        elapsed: start.elapsed(),
        best_turn: turn.clone(),
        value,
        win_probability: (value + 1.0) / 2.0,
        principal_variation: vec![turn.clone()],
        candidates: vec![Candidate {
            turn: turn.clone(),
            visits: 0,
            value,
            win_probability: (value + 1.0) / 2.0,
            proof: None,
        }],
        ..SearchInfo::default()
    };
    SearchResult {
        best_turn: turn,
        value,
        win_probability: (value + 1.0) / 2.0,
        decision,
        info,
    }
}

/// Reads the current state of a search into a [`SearchInfo`].
fn collect_info(shared: &Shared, start: Instant, multi_pv: usize, in_check: bool) -> SearchInfo {
    let tree = shared.tree;
    let elapsed = start.elapsed();
    let iterations = shared.iterations.load(Ordering::Relaxed);
    let root = tree.node(shared.root);
    let best: Option<TreeTurn> = mcts::best_turn(
        tree,
        &shared.rules,
        shared.tunables,
        shared.root,
        &shared.root_position,
    );
    let mut candidates: Vec<Candidate> = mcts::candidate_turns(
        tree,
        &shared.rules,
        shared.root,
        &shared.root_position,
        multi_pv,
    )
    .into_iter()
    .map(to_candidate)
    .collect();
    let mut principal_variation = Vec::new();
    let (best_turn, value) = match &best {
        Some(turn) => {
            principal_variation.push(turn.actions.clone());
            if turn.child != 0 {
                principal_variation.extend(mcts::continuation(
                    tree,
                    &shared.rules,
                    turn.child,
                    turn.result,
                    30,
                ));
            }
            if candidates
                .first()
                .is_none_or(|first| first.turn != turn.actions)
            {
                candidates.retain(|candidate| candidate.turn != turn.actions);
                candidates.insert(0, to_candidate(turn.clone()));
                candidates.truncate(multi_pv);
            }
            (turn.actions.clone(), turn.value)
        }
        None => (Vec::new(), root.mean().unwrap_or(0.0)),
    };
    SearchInfo {
        elapsed,
        iterations,
        tree_nodes: tree.node_count(),
        root_visits: root.visits.load(Ordering::Relaxed) as u64,
        nodes_per_second: iterations as f64 / elapsed.as_secs_f64().max(1e-9),
        average_depth: shared.depth_sum.load(Ordering::Relaxed) as f64 / iterations.max(1) as f64,
        max_depth: shared.max_depth.load(Ordering::Relaxed),
        hash_full: tree.fill_permille(),
        tree_bytes: tree.used_bytes() as u64,
        best_turn,
        value,
        win_probability: (value + 1.0) / 2.0,
        proof: proof_from(root.proof.load(Ordering::Relaxed)),
        principal_variation,
        candidates,
        in_check,
    }
}

fn to_candidate(turn: TreeTurn) -> Candidate {
    Candidate {
        win_probability: (turn.value + 1.0) / 2.0,
        value: turn.value,
        visits: turn.visits,
        proof: proof_from(turn.proof),
        turn: turn.actions,
    }
}

#[cfg(test)]
mod tests {
    use super::mcts::{Shared, Worker};
    use super::tree::{Tree, PROVEN_LOSS, PROVEN_WIN};
    use super::*;
    use crate::notation::hwpn;

    /// Runs the bare tree (no root shortcuts) and returns the root's proof
    /// and mean value for the side to move.
    fn bare_tree(text: &str, iterations: u32) -> (u8, f32) {
        let position = hwpn::parse(text).unwrap().position;
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let tree = Tree::with_megabytes(4);
        let mut worker = Worker::default();
        let root = worker
            .ensure_root(&tree, &rules, &tunables, &position, 0)
            .unwrap();
        let stop = AtomicBool::new(false);
        let shared = Shared {
            tree: &tree,
            rules,
            tunables: &tunables,
            root,
            root_position: position,
            root_turn: 0,
            history: &[],
            root_filter: None,
            stop: &stop,
            halt: AtomicBool::new(false),
            iterations: AtomicU64::new(0),
            depth_sum: AtomicU64::new(0),
            max_depth: AtomicU32::new(0),
            node_limit: u64::MAX,
        };
        for _ in 0..iterations {
            worker.iterate(&shared);
        }
        let node = tree.node(root);
        (node.proof.load(Ordering::Relaxed), node.mean().unwrap())
    }

    #[test]
    fn a_winning_root_backs_up_plus_one() {
        // A red sacrifice then a capture wins: two actions deep in the tree,
        // with values passed up unchanged inside the turn.
        let (proof, value) = bare_tree("r1b3:r3g3:/y2b1:g2:g1 0", 400);
        assert_eq!(proof, PROVEN_WIN);
        assert!(value > 0.5, "value {value}");
    }

    #[test]
    fn a_lost_root_backs_up_minus_one() {
        // Every turn lets player 1's r3 capture player 0's last home ship:
        // values cross the end of the turn with their sign flipped.
        let (proof, value) = bare_tree("r2b1:y1:r3/y3::y2g2 0", 400);
        assert_eq!(proof, PROVEN_LOSS);
        assert!(value < -0.5, "value {value}");
    }
}
