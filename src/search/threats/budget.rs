//! What a check may spend, and the budgets the root gives its checks.
//!
//! A check counts its cost in *work units*: one for each turn it lists
//! and one for each state the win-in-1 solver visits on its behalf. Work,
//! unlike time, is the same on every machine and in every run, so a search
//! under a node limit gives its checks work in proportion to its nodes
//! ([`WORK_PER_NODE`]) and no deadline, and plays the same turns whatever
//! the machine's load. A search on the clock gives them a deadline as
//! well; a check past either limit answers "unknown", never a guess.
//!
//! The shares of the planned time:
//! - the root's checks of the tree's choice, during the search and after
//!   it, share the `check_share` tunable, an eighth of the planned time by
//!   default, and the search is extended by what those during it take, so
//!   that the tree keeps the time it had. An eighth
//!   balances the two costs: a quarter takes more from the tree than the
//!   checks win back, and a sixteenth wins no more games than an eighth;
//! - the search for the mover's own forced win in two, before the tree's,
//!   gets [`ATTACK_SHARE`] of the time and a quarter of the work; on the
//!   clock it runs only far ahead ([`ATTACK_FROM`]) and out of check, under
//!   a node limit always;
//! - after `stop` ends an infinite search the answer is awaited, so its
//!   check gets the short deadline of the in-search ones
//!   ([`INFINITE_CHECK_TIME`]).

use std::time::{Duration, Instant};

use crate::search::options::SearchLimits;
use crate::search::tunables::{Tunable, Tunables};

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

/// Why a check stopped without an answer: its work limit or its deadline
/// came first. Threaded through the checker as an error, so that `?` ends
/// a check at once from however deep in its listings it ran out.
pub(super) struct OutOfBudget;

/// Work units the root's check may spend per search iteration under a node
/// limit, so that node-limited searches stay deterministic and the check
/// grows with the search.
pub(super) const WORK_PER_NODE: u64 = 3000;

/// The root's check work when the search has neither a node nor a time
/// limit (an infinite search stopped by the user).
const UNLIMITED_SEARCH_WORK: u64 = 2_000_000;

/// How long one check in an infinite search may take: the search's leading
/// thread answers `stop` only between checks, so this bounds how long
/// `stop` waits, and the next look at the tree resumes the check.
pub(super) const INFINITE_CHECK_TIME: Duration = Duration::from_millis(50);

/// The budget of the root's check for a search under `limits` whose planned
/// time is `soft`: work in proportion to the node limit, and `share` (the
/// `check_share` tunable, an eighth by default) of the planned time from
/// now, whichever ends first; after an infinite search, a short deadline.
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

/// The budget of the search for the mover's own win in two, whose static
/// value is `value`: [`root_budget`] with [`ATTACK_SHARE`] of the planned
/// time and a quarter of its work. `None` where the root does not look:
/// on the clock, unless far ahead ([`ATTACK_FROM`]) and out of check.
/// Under a node limit the root looks in every position, in check too: the
/// check's work is then in proportion to the nodes, the answer exact and
/// deterministic, and every win in two of the winners' positions in the
/// SDG records is found. On the clock the same look cost strength (see
/// [`ATTACK_FROM`]).
pub(in crate::search) fn attack_budget(
    limits: &SearchLimits,
    soft: Option<Duration>,
    value: f32,
    in_check: bool,
    tunables: &Tunables,
) -> Option<ThreatBudget> {
    let far_ahead = value >= ATTACK_FROM && !in_check;
    let node_limited = soft.is_none() && limits.nodes.is_some() && !limits.infinite;
    let anywhere_share = tunables[Tunable::AttackAnywhereShare];
    let anywhere_from = Duration::from_secs_f32(tunables[Tunable::AttackAnywhereFromMs] / 1000.0);
    let anywhere = anywhere_share > 0.0 && soft.is_some_and(|soft| soft >= anywhere_from);
    let share = if far_ahead || node_limited {
        ATTACK_SHARE
    } else if anywhere {
        anywhere_share
    } else {
        return None;
    };
    let budget = root_budget(limits, soft, share);
    Some(ThreatBudget {
        work: budget.work / 4,
        ..budget
    })
}

/// The static value (for the side to move, in [-1, 1]) from which the
/// search for its own forced win in two gets the larger share of the time
/// ([`ATTACK_SHARE`]): far ahead, the tree's leaf values are all high and
/// it can shuffle until the turn limit, ending a won game in a draw, while
/// an exact plan ends it. The searcher plays a plan it finds at once
/// (decision `forced-win-in-two`) unless it leads back to an earlier
/// position. Thresholds from 0.1 to 0.5, and shares of the time from 0.15
/// to 0.6, play alike in self-play at 100 ms a turn.
///
/// Below it (a seventh of the winners' positions two turns before the end
/// of the SDG records) and in check, the look costs strength on the clock
/// though it finds wins: at 20 ms a turn against the build that looked
/// only from here, a fifth of the time there lost 36-79-6, a twentieth
/// 108-142-34, a twentieth with work held to the time 36-58-11, while at
/// 1,500 nodes, where time is free, the look played even (100-100-16).
pub(in crate::search) const ATTACK_FROM: f32 = 0.3;

/// The share of the planned time the search for the mover's own forced win
/// may take far ahead: it runs before the tree, which still has the rest.
const ATTACK_SHARE: f32 = 0.4;
