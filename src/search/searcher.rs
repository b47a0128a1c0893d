//! [`Searcher`]: one game's search engine, which keeps the tree between
//! searches, the worker thread pool and the scratch space, and answers each
//! search with the simple players, the root's exact checks or the tree.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64};
use std::time::Instant;

use rayon::{ThreadPool, ThreadPoolBuilder};

use super::info::{collect_info, TreeReading};
use super::mcts::{Shared, Worker};
use super::options::{PlayerKind, SearchLimits, SearchOptions};
use super::players;
use super::report::{Decision, SearchInfo, SearchResult};
use super::root::{self, Examined};
use super::run::{self, RunPlan};
use super::solver::Solver;
use super::time::{self, Controller};
use super::tree::{self, Tree};
use crate::rules::{Outcome, Position};

/// Candidate turns the root verifies before falling back to the greedy
/// choice (more when more are reported).
const VERIFIED_CANDIDATES: usize = 16;

/// A search engine for one game at a time. See the module documentation.
pub struct Searcher {
    options: SearchOptions,
    tree: Tree,
    worker: Worker,
    solver: Solver,
    /// The helpers' threads: built at the first search with more than one
    /// thread, rebuilt when `threads` changes.
    pool: Option<ThreadPool>,
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
            pool: None,
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
        if options.threads != self.options.threads {
            self.pool = None;
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
    /// to end the search early; even when it is set before the call, one
    /// iteration runs, so that the answer is the root's first choice by its
    /// priors (verified safe), never a pass for want of time. `on_info` is
    /// called on this thread about every `info_interval`, and once at the end.
    ///
    /// ```
    /// use std::sync::atomic::AtomicBool;
    /// use supernova::rules::{Action, Piece, Colour, Position, Rules};
    /// use supernova::search::{SearchLimits, SearchOptions, Searcher};
    ///
    /// // Both homes set up: player 0 at a Small red and Large blue binary
    /// // star with a Large green ship, player 1 at Medium yellow and Small blue.
    /// let rules = Rules::STANDARD;
    /// let piece = |colour, size| Piece::new(colour, size).unwrap();
    /// let mut position = Position::start();
    /// for (star, second, ship) in [
    ///     (piece(Colour::Red, 1), piece(Colour::Blue, 3), piece(Colour::Green, 3)),
    ///     (piece(Colour::Yellow, 2), piece(Colour::Blue, 1), piece(Colour::Green, 3)),
    /// ] {
    ///     let home = Action::Homeworld { star, second_star: Some(second), ship };
    ///     position.try_apply(&rules, home).unwrap();
    ///     position.end_turn(&rules).unwrap();
    /// }
    ///
    /// // One thread and a node limit: the same turn on every run.
    /// let mut searcher = Searcher::new(SearchOptions { hash_mb: 16, ..SearchOptions::default() });
    /// let stop = AtomicBool::new(false);
    /// let result = searcher.search(&position, &[], &SearchLimits::nodes(500), &stop, |_| {});
    /// assert_eq!(result.info.iterations, 500);
    /// assert!(!result.best_turn.is_empty());
    ///
    /// // The turn replays on the rules core.
    /// for &action in &result.best_turn {
    ///     position.try_apply(&rules, action).unwrap();
    /// }
    /// position.end_turn(&rules).unwrap();
    /// ```
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
            return SearchResult::decided(Vec::new(), 0.0, Decision::GameOver, start.elapsed());
        }
        let result = if position.in_setup() {
            let turn =
                players::setup_turn(position, &rules, self.options.player, self.options.seed);
            SearchResult::decided(turn, 0.0, Decision::Setup, start.elapsed())
        } else {
            match self.options.player {
                PlayerKind::Random => {
                    // The call count keeps a repeated position from getting the
                    // same "random" turn every time, yet stays reproducible.
                    self.searches += 1;
                    let seed =
                        self.options.seed ^ self.searches.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    let turn = players::random_turn(position, &rules, seed);
                    SearchResult::decided(turn, 0.0, Decision::Random, start.elapsed())
                }
                PlayerKind::Greedy => self.greedy_result(position, start),
                PlayerKind::Mcts => {
                    self.search_tree(position, history, limits, stop, &mut on_info, start)
                }
            }
        };
        on_info(&result.info);
        result
    }

    /// The greedy player's answer.
    fn greedy_result(&mut self, position: &Position, start: Instant) -> SearchResult {
        let rules = &self.options.rules;
        let choice = players::greedy(position, rules, &self.options.tunables, &mut self.solver);
        SearchResult::decided(
            choice.actions,
            choice.value,
            choice.decision,
            start.elapsed(),
        )
    }

    /// The tree search between the root's checks (see `root.rs`).
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
        let plan = time::plan(
            limits,
            position.side_to_move(),
            history.len() / 2,
            &tunables,
        );
        // Listing the turns in check gets at most a third of the soft limit.
        let deadline = plan.soft.map(|soft| start + soft / 3);
        let check = match root::examine(
            position,
            &rules,
            &tunables,
            &mut self.solver,
            deadline,
            start,
        ) {
            Examined::Decided(result) => return result,
            Examined::Search(check) => check,
        };
        let mut sorted_history = history.to_vec();
        sorted_history.sort_unstable();
        let root_turn = self.prepare_root(position, check.filter.is_some());
        let Some(root) = self
            .worker
            .ensure_root(&self.tree, &rules, &tunables, position, root_turn)
        else {
            // The tree cannot hold even the root.
            return self.greedy_result(position, start);
        };
        self.last_turn = Some(root_turn);
        let node_limit = match (limits.infinite, limits.nodes) {
            (false, Some(nodes)) => nodes,
            _ => u64::MAX,
        };
        let shared = Shared {
            tree: &self.tree,
            rules,
            tunables: &tunables,
            root,
            root_position: *position,
            root_turn,
            history: &sorted_history,
            root_filter: check.filter.as_deref(),
            stop,
            halt: AtomicBool::new(false),
            iterations: AtomicU64::new(0),
            depth_sum: AtomicU64::new(0),
            max_depth: AtomicU32::new(0),
            node_limit,
        };
        let threads = self.options.threads.max(1);
        let multi_pv = self.options.multi_pv.max(1);
        let in_check = check.in_check;
        let run_plan = RunPlan {
            helpers: thread_pool(&mut self.pool, threads).map(|pool| (pool, threads - 1)),
            controller: Controller::new(start, plan, node_limit, &tunables),
            info_interval: self.options.info_interval,
        };
        run::run(&shared, &mut self.worker, run_plan, &mut |shared| {
            let reading = TreeReading::new(shared, multi_pv);
            on_info(&collect_info(shared, &reading, start, multi_pv, in_check));
        });
        let reading = TreeReading::new(&shared, multi_pv.max(VERIFIED_CANDIDATES));
        let mut info = collect_info(&shared, &reading, start, multi_pv, in_check);
        let choice = root::choose(
            &reading,
            check,
            position,
            &rules,
            &tunables,
            &mut self.solver,
        );
        if info.best_turn != choice.actions {
            info.best_turn = choice.actions.clone();
            info.value = choice.value;
            info.principal_variation = vec![choice.actions.clone()];
        }
        SearchResult {
            best_turn: choice.actions,
            value: choice.value,
            decision: choice.decision,
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

/// The pool of `threads` threads kept in `pool`, built (or rebuilt for a
/// new size) on demand. `None` with one thread, which needs no pool, or if
/// the threads cannot be started: the search then runs on the calling
/// thread alone.
fn thread_pool(pool: &mut Option<ThreadPool>, threads: usize) -> Option<&ThreadPool> {
    if threads <= 1 {
        return None;
    }
    if pool
        .as_ref()
        .is_none_or(|pool| pool.current_num_threads() != threads)
    {
        *pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|index| format!("supernova-search-{index}"))
            .build()
            .ok();
    }
    pool.as_ref()
}
