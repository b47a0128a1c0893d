//! What a search answers: the turn and why it was chosen, its value, the
//! candidate turns, and the statistics reported while it runs.
//!
//! Values are for the side to move, in [-1, 1]; [`win_probability`] turns
//! one into the probability the protocol and the tools print, so that no
//! struct carries a copy that could disagree with its value.

use std::time::Duration;

use super::tree::{PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN};
use crate::rules::Action;

/// The win probability a value in [-1, 1] stands for: `(value + 1) / 2`.
///
/// ```
/// assert_eq!(supernova::search::win_probability(0.5), 0.75);
/// ```
pub fn win_probability(value: f32) -> f32 {
    (value + 1.0) / 2.0
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

impl Proof {
    /// The proof a tree node's proof code stands for, if any.
    pub(crate) fn from_code(code: u8) -> Option<Proof> {
        match code {
            PROVEN_WIN => Some(Proof::Win),
            PROVEN_LOSS => Some(Proof::Loss),
            PROVEN_DRAW => Some(Proof::Draw),
            _ => None,
        }
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
    /// A proven result after this turn, if any.
    pub proof: Option<Proof>,
    /// The expected line that starts with this turn, one entry per turn
    /// (just the turn when the tree has nothing below it), so that every
    /// multi-PV line can show its whole variation.
    pub line: Vec<Vec<Action>>,
}

impl Candidate {
    /// The win probability of [`Candidate::value`] (see [`win_probability`]).
    pub fn win_probability(&self) -> f32 {
        win_probability(self.value)
    }
}

/// Why the returned turn was chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Decision {
    /// The tree search's best turn, verified safe.
    #[default]
    Search,
    /// A turn that eliminates the opponent at once.
    ImmediateWin,
    /// The first turn of a plan that wins by force on the next turn: every
    /// reply of the opponent leaves a win at once. Looked for on the clock
    /// only far ahead and out of check, under a node limit everywhere.
    ForcedWinInTwo,
    /// The only turn after which the opponent cannot win at once.
    OnlySafeTurn,
    /// Every other turn loses at once; this one eliminates both players.
    ForcedDraw,
    /// The search's choice let the opponent win; this is the best safe turn instead.
    SafetyFallback,
    /// Every turn lets the opponent win at once.
    NoSafeTurn,
    /// In check, the time ran out before every turn was classified, and
    /// none of those classified is safe: the tree's best turn, which lets
    /// the opponent win at once, since a `movetime` or a clock must hold.
    NoSafeTurnFound,
    /// The search's choice let the opponent force a win within two of its
    /// turns (see `search::threats`); this turn, proven not to, replaces it.
    TwoTurnDefence,
    /// The search's choice was proven to let the opponent force a win
    /// within two turns (or a known plan of the opponent still threatened
    /// after it) and no defence was proven in time: this turn, which no
    /// check refuted and after which no known plan threatens, replaces it.
    UnrefutedTurn,
    /// A setup turn from the book (or a random one).
    Setup,
    /// The greedy player's choice: from the greedy player, or from the tree
    /// search when its tree could not store a single turn (too little memory).
    Greedy,
    /// The random player's choice.
    Random,
    /// The game is already over; there is no turn.
    GameOver,
    /// Drawn among the search's good, safe candidates by an engine playing
    /// below full strength (`UCI_LimitStrength`).
    LimitedStrength,
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
    /// A proven result for the side to move, if known.
    pub proof: Option<Proof>,
    /// The expected line, one entry per turn, starting with `best_turn`.
    pub principal_variation: Vec<Vec<Action>>,
    /// The best candidate turns, best first (at most `multi_pv`).
    pub candidates: Vec<Candidate>,
    /// Whether the opponent threatened to win at once at the root.
    pub in_check: bool,
    /// Times the tree was recycled during the search: nearly full, it
    /// dropped the children of its least visited nodes to keep growing
    /// within `hash_mb`.
    pub recycles: u32,
    /// Where the iterations' time went; all zero unless the crate is built
    /// with the `phase-timing` feature.
    pub phases: PhaseTimes,
}

/// Where the search iterations' time went, in time-stamp counter ticks
/// summed over every thread, counted only when the crate is built with the
/// `phase-timing` feature (a profiler for machines that have none, such as
/// the many-core machines where scaling with threads is measured). Comparing the
/// ticks per iteration at one thread and at many tells contention on the
/// shared tree (selection and backup grow) from a machine that is slower
/// per thread (every phase grows).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimes {
    /// Iterations counted.
    pub iterations: u64,
    /// Choosing children (PUCT, widening included).
    pub select: u64,
    /// Listing and scoring a node's children when it is first expanded.
    pub expand: u64,
    /// Applying the chosen actions to the iteration's position.
    pub advance: u64,
    /// Creating leaves: the table, the win-in-1 solver and the evaluation.
    pub create: u64,
    /// Backing the value up the path.
    pub backup: u64,
    /// Whole iterations.
    pub total: u64,
}

impl PhaseTimes {
    /// Whether this build counts them: the `phase-timing` feature on a
    /// processor with a time-stamp counter (x86-64).
    pub const COUNTED: bool = cfg!(all(feature = "phase-timing", target_arch = "x86_64"));

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &PhaseTimes) {
        self.iterations += other.iterations;
        self.select += other.select;
        self.expand += other.expand;
        self.advance += other.advance;
        self.create += other.create;
        self.backup += other.backup;
        self.total += other.total;
    }
}

impl SearchInfo {
    /// The win probability of [`SearchInfo::value`] (see [`win_probability`]).
    pub fn win_probability(&self) -> f32 {
        win_probability(self.value)
    }

    /// Reports `turn` (of value `value`) as the best turn where something
    /// other than the tree's order chose it (a safety check, a sampled
    /// choice below full strength): first among the candidates, with the
    /// tree's line and proof for it when the tree has them, and as the
    /// principal variation. Why: a GUI shows the first `multipv` line as
    /// the engine's choice, and a first line that `bestmove` contradicts
    /// reads as a bug. The candidates keep their number.
    pub fn report_instead(&mut self, turn: &[Action], value: f32) {
        let reported = self.candidates.len();
        let candidate = match self
            .candidates
            .iter()
            .position(|candidate| candidate.turn == turn)
        {
            Some(index) => self.candidates.remove(index),
            None => Candidate {
                turn: turn.to_vec(),
                visits: 0,
                value,
                proof: None,
                line: Vec::new(),
            },
        };
        self.best_turn = turn.to_vec();
        self.value = value;
        self.proof = candidate.proof;
        self.principal_variation = if candidate.line.is_empty() {
            vec![turn.to_vec()]
        } else {
            candidate.line.clone()
        };
        if reported > 0 {
            self.candidates.insert(0, candidate);
            self.candidates.truncate(reported);
        }
    }
}

/// The answer of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The turn to play (empty = pass; also empty when the game is over).
    pub best_turn: Vec<Action>,
    /// Its value for the side to move, in [-1, 1].
    pub value: f32,
    /// Why this turn.
    pub decision: Decision,
    /// Final statistics.
    pub info: SearchInfo,
}

impl SearchResult {
    /// The win probability of [`SearchResult::value`] (see [`win_probability`]).
    pub fn win_probability(&self) -> f32 {
        win_probability(self.value)
    }

    /// A result decided without the tree (setup, the simple players, the
    /// root's exact checks): the turn is its own principal variation and
    /// only candidate.
    pub(crate) fn decided(
        turn: Vec<Action>,
        value: f32,
        decision: Decision,
        elapsed: Duration,
    ) -> SearchResult {
        let info = SearchInfo {
            elapsed,
            best_turn: turn.clone(),
            value,
            principal_variation: vec![turn.clone()],
            candidates: vec![Candidate {
                turn: turn.clone(),
                visits: 0,
                value,
                proof: None,
                line: vec![turn.clone()],
            }],
            ..SearchInfo::default()
        };
        SearchResult {
            best_turn: turn,
            value,
            decision,
            info,
        }
    }
}
