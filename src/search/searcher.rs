//! [`Searcher`]: one game's search engine, which keeps the tree between
//! searches, the worker thread pool and the scratch space, and answers each
//! search with the simple players, the root's exact checks or the tree.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::{ThreadPool, ThreadPoolBuilder};

use super::info::{collect_info, TreeReading};
use super::mcts::{Backup, Selection, Shared, Worker};
use super::options::{PlayerKind, SearchLimits, SearchOptions};
use super::players;
use super::report::{Decision, SearchInfo, SearchResult};
use super::root::{self, Examined, RootCheck};
use super::run::{self, RunPlan};
use super::shots;
use super::solver::Solver;
use super::threats::{self, ThreatBudget, ThreatChecker};
use super::time::{self, Controller, TimePlan};
use super::tree::{self, CachePadded, Tree};
use super::tunables::Tunable;
use crate::rules::{Action, Outcome, Position, Rules};

/// Candidate turns the root verifies before falling back to the greedy
/// choice (more when more are reported).
const VERIFIED_CANDIDATES: usize = 16;

/// The most time the two-turn check of the answer may take once the
/// search was told to stop: about what a GUI tolerates between `stop` and
/// `bestmove`.
const STOPPED_CHECK_TIME: Duration = Duration::from_millis(20);

/// The share of the planned time that classifying the root's turns in check
/// may take (see `root::examine`).
const IN_CHECK_LISTING_SHARE: f64 = 0.7;

/// How many of the safe turns in check (best first by score) the defence
/// search gets as candidates: ordering them costs two solver calls each,
/// a root can have tens of thousands, and in the time of a search the
/// defence search decides a few dozen at most.
const DEFENCE_CANDIDATES: usize = 2048;

/// One call of [`Searcher::search`]: what to search, and when it started.
struct Job<'a> {
    position: &'a Position,
    /// Hashes of the earlier start-of-turn positions, in any order.
    history: &'a [u64],
    limits: &'a SearchLimits,
    stop: &'a AtomicBool,
    start: Instant,
}

/// A search engine for one game at a time. See the module documentation.
pub struct Searcher {
    options: SearchOptions,
    tree: Tree,
    worker: Worker,
    solver: Solver,
    /// The two-turn checker of the last search, kept for the next one: the
    /// opponent's winning plans and the replies that refuted them mostly
    /// still apply a turn later, and replayed first they decide a check in
    /// a few solver calls. Forgotten with the tree by [`Searcher::clear`].
    threat_memory: ThreatChecker,
    /// The checker that looks for the mover's own win in two when far
    /// ahead, kept like `threat_memory`: its plans are the mover's.
    attack_memory: ThreatChecker,
    /// The helpers' threads, `threads - 1` of them: built at the first
    /// search with more than one thread, rebuilt when `threads` changes.
    pool: Option<ThreadPool>,
    /// The threads the root's defence search spreads over while the
    /// helpers wait (`RunPlan::check_pool`), built like `pool`.
    check_pool: Option<ThreadPool>,
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
            threat_memory: ThreatChecker::default(),
            attack_memory: ThreatChecker::default(),
            pool: None,
            check_pool: None,
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
            self.check_pool = None;
        }
        self.options = options;
    }

    /// Forgets the tree (a new game).
    pub fn clear(&mut self) {
        self.tree.clear();
        self.threat_memory = ThreatChecker::default();
        self.attack_memory = ThreatChecker::default();
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
                PlayerKind::Shots => {
                    let choice = shots::shots(position, &rules, &mut self.solver);
                    SearchResult::decided(
                        choice.actions,
                        choice.value,
                        choice.decision,
                        start.elapsed(),
                    )
                }
                PlayerKind::Mcts => {
                    let job = Job {
                        position,
                        history,
                        limits,
                        stop,
                        start,
                    };
                    self.search_tree(&job, &mut on_info)
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
    fn search_tree(&mut self, job: &Job, on_info: &mut dyn FnMut(&SearchInfo)) -> SearchResult {
        let rules = self.options.rules;
        let tunables = self.options.tunables.clone();
        let position = job.position;
        let plan = time::plan(
            job.limits,
            position.side_to_move(),
            job.history.len() / 2,
            &tunables,
        );
        // Listing the turns in check gets most of the soft limit: when it
        // runs out, the tree searches every turn, and if none it tried is
        // safe the choice resumes the listing, until the time is up.
        let deadline = plan
            .soft
            .map(|soft| job.start + soft.mul_f64(IN_CHECK_LISTING_SHARE));
        let solver = &mut self.solver;
        let check = match root::examine(position, &rules, &tunables, solver, deadline, job.start) {
            Examined::Decided(result) => return result,
            Examined::Search(check) => check,
        };
        // The root first looks for a forced win in two: on the clock far
        // ahead and out of check, under a node limit always (a plan whose
        // first turn leaves the opponent no win at once is a safe turn that
        // wins, in check too). With one thread that search comes before the tree's;
        // with more, the calling thread runs it while the helpers already
        // grow the tree, so that they do not wait for it (on 16 threads it
        // took about a tenth of the bench's time).
        let attack_budget = self.attack_budget(job, plan.soft, check.in_check);
        let overlap = self.options.threads > 1;
        if let (Some(budget), false) = (attack_budget, overlap) {
            let memory = &mut self.attack_memory;
            if let Some(turn) = winning_turn(memory, job, &rules, budget) {
                return forced_win(turn, job.start);
            }
        }
        let mut verifier = threats::RootVerifier::new(
            job.limits,
            plan.soft,
            job.start,
            tunables[Tunable::CheckShare],
        );
        verifier.remember(std::mem::take(&mut self.threat_memory));
        if check.in_check {
            let safe = check
                .safe_turns
                .as_ref()
                .filter(|analysis| analysis.complete)
                .map(|analysis| analysis.safe_turns(DEFENCE_CANDIDATES));
            verifier.in_check(safe, &rules, &tunables);
        }
        let mut attack_memory = std::mem::take(&mut self.attack_memory);
        let mut attack_turn = None;
        let prelude = attack_budget.filter(|_| overlap).map(|budget| {
            let (memory, found) = (&mut attack_memory, &mut attack_turn);
            Box::new(move || {
                *found = winning_turn(memory, job, &rules, budget);
                found.is_some()
            }) as Box<dyn FnOnce() -> bool + '_>
        });
        let tree_plan = plan.shortened(guard_share(&tunables));
        let grown = self.grow_tree(job, tree_plan, &check, &mut verifier, prelude, on_info);
        self.attack_memory = attack_memory;
        if let Some(turn) = attack_turn {
            self.threat_memory = verifier.into_memory();
            return forced_win(turn, job.start);
        }
        let Some((reading, info)) = grown else {
            // The tree cannot hold even the root.
            self.threat_memory = verifier.into_memory();
            return self.greedy_result(position, job.start);
        };
        self.answer(job, plan, check, verifier, &reading, info)
    }

    /// The answer after the tree search: the root's choice from what the
    /// tree read (`reading`, `info`), made safe against the two-turn
    /// threats the verifier knows of, within what is left of the time.
    fn answer(
        &mut self,
        job: &Job,
        plan: TimePlan,
        check: RootCheck,
        mut verifier: threats::RootVerifier,
        reading: &TreeReading,
        mut info: SearchInfo,
    ) -> SearchResult {
        let rules = self.options.rules;
        let tunables = &self.options.tunables;
        let position = job.position;
        // Told to stop (`stop`, `ponderhit`, `quit`), the answer is wanted
        // now: an infinite search's checks have no deadline of their own and
        // could take seconds.
        let prompt = job
            .stop
            .load(Ordering::Relaxed)
            .then(|| Instant::now() + STOPPED_CHECK_TIME);
        let sooner = |deadline: Option<Instant>| match (deadline, prompt) {
            (Some(deadline), Some(prompt)) => Some(deadline.min(prompt)),
            (deadline, prompt) => deadline.or(prompt),
        };
        // The choice's classification (when none of the tree's turns is
        // safe) ends with the time the search had, credits included.
        let hard = plan.hard.map(|hard| job.start + hard + verifier.credit());
        let cap = plan.cap.map(|cap| job.start + cap);
        let choice_deadline = sooner(hard.into_iter().chain(cap).min());
        let solver = &mut self.solver;
        let choice = root::choose(
            reading,
            check,
            position,
            &rules,
            tunables,
            solver,
            choice_deadline,
        );
        let mut budget = verifier.remaining(threats::root_budget(
            job.limits,
            plan.soft,
            tunables[Tunable::CheckShare],
        ));
        budget.deadline = sooner(budget.deadline);
        let safer = verifier.safer_choice(&choice, reading, position, &rules, budget);
        let choice = if let Some(safer) = safer {
            safer
        } else if verifier.proven_safe(&choice.actions) {
            choice
        } else {
            let pool = self.check_pool.as_ref();
            verifier.defend(choice, reading, position, &rules, tunables, budget, pool)
        };
        self.threat_memory = verifier.into_memory();
        if info.best_turn != choice.actions {
            info.report_instead(&choice.actions, choice.value);
        }
        SearchResult {
            best_turn: choice.actions,
            value: choice.value,
            decision: choice.decision,
            info,
        }
    }

    /// The budget of the search for a forced win in two, or `None` where the
    /// root does not look (see `threats::attack_budget`).
    fn attack_budget(
        &mut self,
        job: &Job,
        soft: Option<Duration>,
        in_check: bool,
    ) -> Option<ThreatBudget> {
        let rules = &self.options.rules;
        let tunables = &self.options.tunables;
        let value = super::static_evaluation_using(job.position, rules, tunables, &mut self.solver);
        threats::attack_budget(job.limits, soft, value, in_check, tunables)
    }

    /// Places the root in the tree and searches it until the limits, the
    /// stop flag or a proof end the search. Returns the tree's answer and
    /// the final report, or `None` if the tree cannot hold the root.
    fn grow_tree(
        &mut self,
        job: &Job,
        plan: TimePlan,
        check: &RootCheck,
        verifier: &mut threats::RootVerifier,
        prelude: Option<Box<dyn FnOnce() -> bool + '_>>,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Option<(TreeReading, SearchInfo)> {
        let root_turn = self.prepare_root(job.position, check.filter.is_some());
        let tunables = &self.options.tunables;
        let Some(root) = self.worker.ensure_root(
            &self.tree,
            &self.options.rules,
            tunables,
            job.position,
            root_turn,
        ) else {
            // No tree to grow beside it: the prelude still runs, alone.
            if let Some(prelude) = prelude {
                prelude();
            }
            return None;
        };
        self.last_turn = Some(root_turn);
        let mut history = job.history.to_vec();
        history.sort_unstable();
        let node_limit = match (job.limits.infinite, job.limits.nodes) {
            (false, Some(nodes)) => nodes,
            _ => u64::MAX,
        };
        // Draws are scored against whoever the root's static value favours.
        let backup = Backup::new(
            tunables,
            job.position.side_to_move().index(),
            self.tree.node(root).static_value(),
        );
        let shared = Shared {
            tree: &self.tree,
            rules: self.options.rules,
            tunables,
            root,
            root_position: *job.position,
            root_turn,
            history: &history,
            root_filter: check.filter.as_deref(),
            stop: job.stop,
            halt: AtomicBool::new(false),
            iterations: CachePadded(AtomicU64::new(0)),
            depth_sum: CachePadded(AtomicU64::new(0)),
            max_depth: CachePadded(AtomicU32::new(0)),
            node_limit,
            backup,
            recycles: AtomicU32::new(0),
            exclusive: self.options.threads <= 1,
            selection: Selection::new(tunables),
            phases: Mutex::default(),
        };
        let threads = self.options.threads.max(1);
        let multi_pv = self.options.multi_pv.max(1);
        let run_plan = RunPlan {
            // The calling thread is the leading worker, so the helpers' pool
            // has one thread a helper and none to spare: a rayon thread with
            // no work yields the processor dozens of times before it sleeps,
            // and is woken when work is posted, which took turns from the
            // busy workers (on 2 cores, 4% of the bench's speed).
            helpers: thread_pool(&mut self.pool, threads - 1, "search"),
            // The crew works while the calling thread waits for it; one
            // thread alone has no crew.
            check_pool: thread_pool(
                &mut self.check_pool,
                if threads > 1 { threads } else { 0 },
                "check",
            ),
            controller: Controller::new(job.start, plan, node_limit, tunables),
            info_interval: self.options.info_interval,
            verifier: Some(verifier),
            prelude,
        };
        let report = |shared: &Shared, candidates: usize| {
            let reading = TreeReading::new(shared, candidates);
            let info = collect_info(shared, &reading, job.start, multi_pv, check.in_check);
            (reading, info)
        };
        run::run(&shared, &mut self.worker, run_plan, &mut |shared| {
            on_info(&report(shared, multi_pv).1);
        });
        Some(report(&shared, multi_pv.max(VERIFIED_CANDIDATES)))
    }

    /// Finds the root for `position` in the kept tree (the same turn, or one
    /// or two turns after the last root), compacting the tree around it, or
    /// clears the tree. Returns the root's turn index.
    fn prepare_root(&mut self, position: &Position, fresh: bool) -> u32 {
        if let (Some(last), true, false) = (self.last_turn, self.options.tree_reuse, fresh) {
            for delta in [2, 1, 0] {
                let turn = last + delta;
                if let Some(node) = self.tree.lookup(tree::node_key(position, turn)) {
                    // The same root as the last search (`ponderhit`, or a
                    // new `go` on the same position) reaches the whole
                    // tree: compacting would cost a pass over it for
                    // nothing (what it would free, a recycle frees).
                    if node != 1 || delta != 0 {
                        self.tree.compact(node, self.options.threads > 1);
                    }
                    return turn;
                }
            }
        }
        self.tree.clear();
        self.last_turn = None;
        0
    }
}

/// The share of a timed search kept from the tree for the shot guard
/// (`shot_guard.rs`): none when the guard is off.
fn guard_share(tunables: &super::tunables::Tunables) -> f64 {
    if tunables[Tunable::ShotGuard] > 0.0 {
        f64::from(tunables[Tunable::ShotGuardShare])
    } else {
        0.0
    }
}

/// The first turn of a forced win in two that `memory` finds for the root
/// within `budget`. A plan whose turn leads back to an earlier position is
/// not taken: the repetition rule could end the game first.
fn winning_turn(
    memory: &mut ThreatChecker,
    job: &Job,
    rules: &Rules,
    budget: ThreatBudget,
) -> Option<Vec<Action>> {
    let turn = memory.winning_plan(job.position, rules, budget)?;
    let result = threats::result_of(job.position, &turn, rules)?;
    (!job.history.contains(&result.hash())).then_some(turn)
}

/// The answer for a forced win in two found at the root.
fn forced_win(turn: Vec<Action>, start: Instant) -> SearchResult {
    SearchResult::decided(turn, 1.0, Decision::ForcedWinInTwo, start.elapsed())
}

/// The pool of `threads` threads kept in `pool`, built (or rebuilt for a
/// new size) on demand. `None` for 0 threads (a search of one thread needs
/// neither pool), or if the threads cannot be started: the search then runs
/// on the calling thread alone. The threads are named
/// `supernova-NAME-INDEX`, so that a profiler or debugger tells the helpers
/// from the checks' crew.
fn thread_pool<'a>(
    pool: &'a mut Option<ThreadPool>,
    threads: usize,
    name: &'static str,
) -> Option<&'a ThreadPool> {
    if threads == 0 {
        return None;
    }
    if pool
        .as_ref()
        .is_none_or(|pool| pool.current_num_threads() != threads)
    {
        *pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(move |index| format!("supernova-{name}-{index}"))
            .build()
            .ok();
    }
    pool.as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Action, Colour, Piece, Rules};

    /// The position after the setup turns `home.r1.b3.g3 home.y2.b1.g3`.
    fn after_setup() -> Position {
        let rules = Rules::STANDARD;
        let piece = |colour, size| Piece::new(colour, size).unwrap();
        let mut position = Position::start();
        for (star, second, ship) in [
            (
                piece(Colour::Red, 1),
                piece(Colour::Blue, 3),
                piece(Colour::Green, 3),
            ),
            (
                piece(Colour::Yellow, 2),
                piece(Colour::Blue, 1),
                piece(Colour::Green, 3),
            ),
        ] {
            let home = Action::Homeworld {
                star,
                second_star: Some(second),
                ship,
            };
            position.try_apply(&rules, home).unwrap();
            position.end_turn(&rules).unwrap();
        }
        position
    }

    #[test]
    fn the_opponents_plans_found_in_a_search_are_kept_until_a_new_game() {
        // SDG game 13748 before turn 57 (two-turn suite position 12): the
        // opponent has a two-turn plan against most turns.
        let text = "Joe=y1:r3:/ZackStack=r2b3::y2y3g1g3/Belle=b1:r1r3y1:/Ann=b3:r2y1y2g2:\
                    /Gwen=r3::y3g1/Mae=y2::g2/Gina=y3:r2g1g2b2: 0";
        let position = crate::notation::hwpn::parse(text).unwrap().position;
        let stop = AtomicBool::new(false);
        let mut searcher = Searcher::new(SearchOptions {
            hash_mb: 16,
            ..SearchOptions::default()
        });
        assert_eq!(searcher.threat_memory.remembered_plans(), 0);
        searcher.search(&position, &[], &SearchLimits::nodes(3_000), &stop, |_| {});
        assert!(searcher.threat_memory.remembered_plans() > 0);
        searcher.clear();
        assert_eq!(searcher.threat_memory.remembered_plans(), 0);
    }

    #[test]
    fn the_thread_pool_follows_the_threads_option() {
        let position = after_setup();
        let stop = AtomicBool::new(false);
        let limits = SearchLimits::nodes(600);
        let mut options = SearchOptions {
            hash_mb: 8,
            ..SearchOptions::default()
        };
        let mut searcher = Searcher::new(options.clone());
        for threads in [1, 3, 2, 2, 1] {
            options.threads = threads;
            searcher.set_options(options.clone());
            let result = searcher.search(&position, &[], &limits, &stop, |_| {});
            // Helpers add their counts in batches of 16.
            let iterations = result.info.iterations;
            assert!((600..=600 + 16 * threads as u64).contains(&iterations));
            assert!(!result.best_turn.is_empty());
            let pool_threads = searcher.pool.as_ref().map(ThreadPool::current_num_threads);
            // One thread needs no pool; a change of size drops the old one;
            // the calling thread is the first worker, so no pool thread is
            // left idle.
            let expected = (threads > 1).then_some(threads - 1);
            assert_eq!(pool_threads, expected, "{threads} threads");
            // The checks' crew is as large as the search.
            let crew_threads = searcher
                .check_pool
                .as_ref()
                .map(ThreadPool::current_num_threads);
            assert_eq!(
                crew_threads,
                (threads > 1).then_some(threads),
                "{threads} threads"
            );
        }
    }

    #[test]
    fn a_new_hash_size_gives_a_new_tree_that_the_reserves_do_not_confuse() {
        // The searcher's worker keeps a reserve of node numbers between
        // searches; after `Hash` changes, none of them may be used in the
        // new (smaller) tree.
        let position = after_setup();
        let stop = AtomicBool::new(false);
        let limits = SearchLimits::nodes(3_000);
        let mut options = SearchOptions {
            hash_mb: 8,
            ..SearchOptions::default()
        };
        let mut searcher = Searcher::new(options.clone());
        for hash_mb in [8, 1, 8, 1] {
            options.hash_mb = hash_mb;
            searcher.set_options(options.clone());
            let result = searcher.search(&position, &[], &limits, &stop, |_| {});
            assert_eq!(result.info.iterations, 3_000);
            assert!(result.info.tree_nodes <= searcher.tree.node_capacity());
            assert!(!result.best_turn.is_empty());
        }
    }

    /// Levels (actions) of the most visited line from the root, counting
    /// the nodes that exist, and the visits of its last node with at least
    /// `visits` visits.
    fn best_line(tree: &Tree, root: u32) -> u32 {
        let mut depth = 0;
        let mut node = root;
        while depth < 1_000 {
            let (first, count, _) = tree.node(node).children();
            let best = (first..first + count)
                .map(|index| tree.edge(index))
                .filter(|edge| edge.child.load(Ordering::Relaxed) != 0)
                .max_by_key(|edge| edge.visits.load(Ordering::Relaxed));
            let Some(edge) = best else { break };
            node = edge.child.load(Ordering::Relaxed);
            depth += 1;
        }
        depth
    }

    #[test]
    fn a_tiny_tree_recycles_and_its_best_line_keeps_deepening() {
        let rules = Rules::STANDARD;
        let position = after_setup();
        let stop = AtomicBool::new(false);
        let options = SearchOptions {
            hash_mb: 1,
            ..SearchOptions::default()
        };
        let mut searcher = Searcher::new(options);
        let capacity = searcher.tree.node_capacity();
        assert!(searcher.tree_capacity_bytes() <= 1 << 20);
        // Before the tree fills: no recycle.
        let early = searcher.search(
            &position,
            &[],
            &SearchLimits::nodes(capacity / 2),
            &stop,
            |_| {},
        );
        assert_eq!(early.info.recycles, 0);
        let early_line = best_line(&searcher.tree, 1);
        let early_visits = early.info.candidates[0].visits;
        // Many times what fits: the tree recycles, stays within its
        // arenas, and its best line keeps growing.
        searcher.clear();
        let mut peak = 0;
        let mut recycles = Vec::new();
        let result = searcher.search(
            &position,
            &[],
            &SearchLimits::nodes(capacity * 30),
            &stop,
            |info| {
                peak = peak.max(info.tree_nodes);
                recycles.push(info.recycles);
            },
        );
        assert!(
            result.info.recycles >= 5,
            "{} recycles",
            result.info.recycles
        );
        assert!(peak <= capacity && result.info.tree_nodes <= capacity);
        assert!(result.info.tree_bytes <= 1 << 20);
        assert!(result.info.hash_full < 1000);
        let line = best_line(&searcher.tree, 1);
        assert!(
            line > early_line,
            "best line {line} levels, {early_line} before"
        );
        assert!(result.info.candidates[0].visits > 10 * early_visits);
        let mut replayed = position;
        for &action in &result.best_turn {
            replayed.try_apply(&rules, action).unwrap();
        }
        replayed.end_turn(&rules).unwrap();
        // One thread and a node limit: the same search, recycles and all,
        // every time.
        searcher.clear();
        let again = searcher.search(
            &position,
            &[],
            &SearchLimits::nodes(capacity * 30),
            &stop,
            |_| {},
        );
        assert_eq!(again.best_turn, result.best_turn);
        assert_eq!(again.info.recycles, result.info.recycles);
        assert_eq!(again.info.tree_nodes, result.info.tree_nodes);
        assert_eq!(again.info.candidates, result.info.candidates);
        assert_eq!(
            again.info.principal_variation,
            result.info.principal_variation
        );
    }

    #[test]
    fn batched_statistics_of_hot_nodes_all_reach_the_tree() {
        // Two threads add the statistics of the root, of hot nodes and of
        // the edges out of them in batches: once the search has ended, no
        // visit may be missing or left in flight.
        let position = after_setup();
        let stop = AtomicBool::new(false);
        let mut searcher = Searcher::new(SearchOptions {
            hash_mb: 16,
            threads: 2,
            ..SearchOptions::default()
        });
        let result = searcher.search(&position, &[], &SearchLimits::nodes(12_000), &stop, |_| {});
        let tree = &searcher.tree;
        let root = tree.node(1);
        assert_eq!(
            root.visits.load(Ordering::Relaxed) as u64,
            result.info.iterations
        );
        let mut hot = 0;
        for index in 2..tree.allocated_nodes() as u32 {
            let node = tree.node(index);
            let visits = node.visits.load(Ordering::Relaxed);
            hot += usize::from(visits >= super::super::mcts::HOT_VISITS);
            assert_eq!(node.virtual_loss.load(Ordering::Relaxed), 0, "node {index}");
            // Every pass through a node that goes on to a child counts on
            // that child's edge, and every pass counts on the node.
            let (first, count, _) = node.children();
            let passed: u32 = (first..first + count)
                .map(|edge| tree.edge(edge).visits.load(Ordering::Relaxed))
                .sum();
            assert!(passed <= visits, "node {index}: {passed} > {visits}");
        }
        assert!(hot > 0, "no hot node below the root");
        let (first, count, _) = root.children();
        let passed: u64 = (first..first + count)
            .map(|edge| tree.edge(edge).visits.load(Ordering::Relaxed) as u64)
            .sum();
        // Only iterations that came while the root was being expanded
        // stopped there: a few, however loaded the machine, not a tenth.
        assert!(passed <= result.info.iterations);
        assert!(
            passed * 10 >= result.info.iterations * 9,
            "{passed} of {}",
            result.info.iterations
        );
    }
}
