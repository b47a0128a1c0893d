//! What a check may spend, and the root's budgets.

use std::time::{Duration, Instant};

use crate::search::options::SearchLimits;

/// How much a check may spend: work units (listed turns plus solver states)
/// and, for searches on the clock, a deadline.
#[derive(Clone, Copy, Debug)]
pub struct ThreatBudget {
    /// Work units after which the check answers "unknown".
    pub work: u64,
    /// When to give up, if the search is on the clock.
    pub deadline: Option<Instant>,
}

impl ThreatBudget {
    /// A budget of `work` units with no deadline: deterministic.
    pub fn work(work: u64) -> ThreatBudget {
        ThreatBudget {
            work,
            deadline: None,
        }
    }
}

/// Why a check stopped without an answer.
pub(super) struct OutOfBudget;

/// Work units the root's check may spend per search iteration under a node
/// limit, so that node-limited searches stay deterministic and the check
/// grows with the search.
pub(super) const WORK_PER_NODE: u64 = 3000;

/// The root's check work when the search has neither a node nor a time
/// limit (an infinite search stopped by the user).
const UNLIMITED_SEARCH_WORK: u64 = 2_000_000;

/// How long one check in an infinite search may take.
pub(super) const INFINITE_CHECK_TIME: Duration = Duration::from_millis(50);

/// The budget of the root's check for a search under `limits` whose planned
/// time is `soft`: work in proportion to the node limit, and `share` (the
/// `check_share` tunable, an eighth by default) of the planned time from now, whichever ends first; after an infinite
/// search, a short deadline.
pub(in crate::search) fn root_budget(
    limits: &SearchLimits,
    soft: Option<Duration>,
    share: f32,
) -> ThreatBudget {
    let nodes = limits.nodes.filter(|_| !limits.infinite);
    let work = match (nodes, soft) {
        (Some(nodes), _) => nodes.saturating_mul(WORK_PER_NODE),
        (None, Some(_)) => u64::MAX,
        (None, None) => UNLIMITED_SEARCH_WORK,
    };
    // After `stop` ends an infinite search the answer is awaited: its check
    // gets the short deadline of the in-search ones, not a run on work.
    let deadline = match soft {
        Some(soft) => Some(Instant::now() + soft.mul_f32(share)),
        None if limits.infinite => Some(Instant::now() + INFINITE_CHECK_TIME),
        None => None,
    };
    ThreatBudget { work, deadline }
}

/// The budget of the search for the mover's own win in two when it is far
/// ahead ([`ATTACK_FROM`]): [`root_budget`] with [`ATTACK_SHARE`] of the
/// planned time and a quarter of its work.
pub(in crate::search) fn attack_budget(
    limits: &SearchLimits,
    soft: Option<Duration>,
) -> ThreatBudget {
    let budget = root_budget(limits, soft, ATTACK_SHARE);
    ThreatBudget {
        work: budget.work / 4,
        ..budget
    }
}

/// The static value (for the side to move, in [-1, 1]) from which the root
/// looks for a forced win in two before searching: far ahead, the tree's
/// leaf values are all high and it can shuffle for a hundred turns (in the
/// 400-game match of 8631315 against e6e26e8 at 100 ms a turn, 13 games
/// ended at the turn limit with the engine at +0.27 to +0.99), while an
/// exact plan ends the game. Measured at 100 ms a turn in self-play
/// against these values (same code otherwise): 0.5 with a share of 0.15
/// lost 26-62-13 (-129.5 ± 68.2 Elo, SPRT [0, 20] rejected at 100 games)
/// on a machine shared with other searches, and scored 48-41-11 (+24.4 ±
/// 65.1) when repeated on a quiet one; 0.1 scored 69-83-26 (about -27 ±
/// 48, 178 games, stopped). No setting measurably differs.
pub(in crate::search) const ATTACK_FROM: f32 = 0.3;

/// The share of the planned time that search may take.
const ATTACK_SHARE: f32 = 0.4;
