//! What a search is told: the searcher's options (threads, memory, seed,
//! player, rules, tunables) and the limits of one search.

use std::str::FromStr;
use std::time::Duration;

use super::tunables::Tunables;
use crate::rules::Rules;

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
    /// One turn of lookahead with a static evaluation of its own that
    /// counts material and the opponent's best single turn next (see
    /// `shots.rs`): a test opponent that punishes one-turn shots.
    Shots,
}

impl PlayerKind {
    /// The option value naming this player.
    pub fn name(self) -> &'static str {
        match self {
            PlayerKind::Mcts => "mcts",
            PlayerKind::Greedy => "greedy",
            PlayerKind::Random => "random",
            PlayerKind::Shots => "shots",
        }
    }
}

impl FromStr for PlayerKind {
    type Err = String;

    fn from_str(text: &str) -> Result<PlayerKind, String> {
        [
            PlayerKind::Mcts,
            PlayerKind::Greedy,
            PlayerKind::Random,
            PlayerKind::Shots,
        ]
        .into_iter()
        .find(|kind| kind.name().eq_ignore_ascii_case(text))
        .ok_or_else(|| format!("unknown player '{text}': expected mcts, greedy, random or shots"))
    }
}

/// The default tree memory, in megabytes: about 1.5 million nodes, a few
/// seconds of one thread's search before it first recycles, and ample for
/// a game's turns. The memory is committed only as the tree grows, so a
/// short search costs only what it uses; engines running many games at
/// once (matches, training) may set less.
pub const DEFAULT_HASH_MB: usize = 256;

/// How a searcher is set up. Changing `hash_mb` needs a new searcher (or
/// [`Searcher::set_options`](super::Searcher::set_options)).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Worker threads for one search (at least 1): the calling thread and
    /// `threads - 1` helpers on the searcher's thread pool.
    pub threads: usize,
    /// Memory for the tree, in megabytes: an upper bound, committed only as
    /// the tree grows. When a search fills it, the tree recycles its least
    /// visited branches and goes on growing within it (see `tree/`).
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
        SearchOptions::with_tunables(Tunables::default())
    }
}

impl SearchOptions {
    /// The default options with `tunables`, for callers that need the other
    /// defaults without building the default tunables (which load the
    /// built-in network; see [`Tunables::hand`]).
    pub fn with_tunables(tunables: Tunables) -> SearchOptions {
        SearchOptions {
            threads: 1,
            hash_mb: DEFAULT_HASH_MB,
            seed: 0,
            multi_pv: 1,
            player: PlayerKind::Mcts,
            rules: Rules::STANDARD,
            tunables,
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
///
/// Only a clock is managed: the search budgets a share of it and may stop
/// early once its choice is settled (see `time.rs`). A node limit or a
/// movetime is searched in full, as told; the search ends before it only
/// when the stop flag is set or the root's result is proven.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// Iterations (playouts) to run in this search: exact with one thread;
    /// with more, threads count in batches of 16, so the search may run up to
    /// 16 iterations per thread past it.
    pub nodes: Option<u64>,
    /// Time for this turn, searched in full (UCI's "search exactly").
    pub movetime: Option<Duration>,
    /// A game clock to budget from; the only limit under which the search
    /// stops early when its choice is clear.
    pub clock: Option<Clock>,
    /// Search until stopped, ignoring the other limits.
    pub infinite: bool,
    /// A ponder search (UCI's `go ponder`): the position is the one after
    /// the expected reply, searched without limits until the controller
    /// says `ponderhit` (the reply was played: the search goes on under the
    /// other limits, keeping its tree) or `stop`. The searcher itself never
    /// sees this flag; the engine runs the two phases.
    pub ponder: bool,
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
