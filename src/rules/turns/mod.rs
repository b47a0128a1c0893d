//! Whole-turn enumeration: every distinct legal turn from a position.
//!
//! Two turns are the same when they lead to the same position (rules.md §12),
//! so the enumerator walks single actions depth-first and keeps one turn per
//! resulting position. It also remembers every mid-turn state it has
//! expanded: two action orders that reach the same state (the same board and
//! the same turn state) lead to exactly the same set of results, so the second
//! visit is cut. That memo is what keeps yellow-sacrifice positions with tens
//! of thousands of results fast, and it cannot lose a turn.
//!
//! # Commuting last steps
//! Most of a big listing is the last step of a yellow sacrifice, and most of
//! those steps land on a result already listed: three independent moves
//! reach one result from three different two-move states. When the step
//! that reached a state and the step about to end the turn provably commute
//! and the generator lists the second one first in the parent state, the
//! result was already reached, earlier, through the parent's child by that
//! second step, so it is skipped without being looked at (see
//! `Walk::skip`). Only known results are skipped, so the turns come out
//! in the same order with the same actions as without the rule.
//!
//! # Last yellow steps
//! The last action of a yellow sacrifice is a move or a discovery that ends
//! the turn, and most of those repeat a result already listed. In such a
//! state the enumerator keys each step from the slot words alone
//! (`LastYellowSteps`: what the ship's leaving adds, once per ship, plus
//! what its arrival adds, once per destination and ship type) straight
//! from the generator's per-slot target lists, and writes the step's patch
//! from the same two words, without the general `Position::patch`. The
//! per-step commuting rule is not used there: a prefetched lookup costs
//! less. Instead `EarlierSteps` leaves out, a ship at a time, the steps
//! that provably repeat a result listed before: those of the ships the
//! parent state lists first, and the moved ship's own steps that undo the
//! step before.
//!
//! # Attack-first order
//! A search that stops at the first turn of a kind (a plan against the
//! opponent's home) can ask for [`TurnOrder::AttackFirst`]: a first walk
//! takes only the actions aimed at that home (`Focus`), a second walk takes
//! every action and lists only the results the first did not. Each walk has
//! its own state memo, since the first expands states only partly; the
//! results memo is shared, so every turn still comes once.
//!
//! # Twinned systems
//! Mid-turn, a non-home system is often identical to an earlier one (a ship
//! moved next to its like, a system found with the star and ship of
//! another). Each action there leads to the state that the same action at
//! the earlier twin leads to, listed just before, with the two slots
//! swapped, which the keys ignore: a repeat. The full pass leaves those
//! actions out (`Position::for_each_distinct_action`, and the same in the
//! last steps' own generator). A focused pass picks actions by the slots as
//! they stood at the turn's start, so it may take an action at one twin and
//! not at the other, and looks at both.
//!
//! # The sets
//! Three [`HashSet64`]s of position keys: the memo of mid-turn states, the
//! results listed, and the results whose turn may not end there (a
//! forbidden self-elimination). The keys are position hashes, already well
//! mixed, so the sets are open-addressed tables of bare `u64`s; the
//! enumerator owns them and clears them between listings, so that a
//! search that lists thousands of positions allocates once. Their sizes
//! follow the listings: the result set of a big listing (tens of thousands
//! of results) outgrows its small-page table and goes straight to one
//! 2 MB huge page, while the memo, about a tenth of the results (2,206
//! states for the reference engine's position A), doubles in small pages
//! up to `STATE_SMALL_SLOTS` slots; the refused set starts tiny, since it is
//! mostly unused. The memory layer's docs say why huge pages.
//!
//! # How it is checked
//! The listing must be exact: every distinct result once, no more. The
//! perft tests (`tests/perft.rs`) compare the counts with the independent
//! reference engine (homeworlds-cli) under `--rules cli`: its two
//! benchmark positions (27,635 and 33,332 turns) and the 5,609 real-game
//! positions of the shared development set (those under a million turns by
//! default, all with `SUPERNOVA_FULL_PERFT=1`), and check that a stopped
//! and resumed listing, or an attack-first one, gives the same turns each
//! once. The unit tests here compare, at positions of random games under
//! every profile and at crowded maps with one free slot or none (which
//! random games seldom reach), the listing with and without the repeat
//! rules (the same turns in the same order), the count with the listing's
//! length, and the listing with every result found the plain way (each
//! action of each state reached applied and ended, sharing none of the
//! enumerator's shortcuts). Debug builds check every keyed step against
//! `Position::patch`. `supernova bench`'s signature moves if a listing's
//! order changes, since the search reads the turns in that order.

use std::time::Instant;

use super::piece::{Piece, Player};
use super::position::{
    word_size_mask, Action, ArrivalCache, LastYellowSteps, Outcome, Patch, Position, Slot,
    TurnState, HOME_SLOTS, SLOT_COUNT,
};
use super::profile::{Rules, SelfElimination};

mod repeats;
mod walk;

pub use super::memory::HashSet64;
use repeats::{EarlierSteps, LastStep};
use walk::{Settling, Walk};

/// A complete turn: its actions in order and where it leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The steps, in order. Empty means a plain pass.
    pub actions: Vec<Action>,
    /// The position after the turn, with the other side to move.
    pub result: Position,
    /// The game result after the turn.
    pub outcome: Outcome,
}

/// The most slots the enumerator's memo of mid-turn states grows to in
/// small pages (128 KB): the states of a listing are about a tenth of its
/// results, 2,206 for the reference engine's position A (8,192 slots), and
/// past this size a doubling in small pages (64 faults and a rehash) costs
/// more than a huge page.
pub(crate) const STATE_SMALL_SLOTS: usize = 16384;

/// Reusable buffers for enumerating turns, so that repeated calls (perft over
/// many positions, a root in check) do not reallocate.
///
/// ```
/// use supernova::rules::{Outcome, Position, Rules, TurnEnumerator};
///
/// // Every distinct first turn of the game: player 0 creating a homeworld.
/// let rules = Rules::STANDARD;
/// let start = Position::start();
/// let mut enumerator = TurnEnumerator::default();
/// let mut homes = 0;
/// enumerator.for_each_turn(&start, &rules, |actions, result, outcome| {
///     assert_eq!(actions.len(), 1);
///     assert_eq!(outcome, Outcome::Ongoing);
///     assert!(result.home_created(supernova::rules::Player::First));
///     homes += 1;
/// });
/// assert_eq!(homes, enumerator.count(&start, &rules));
/// ```
pub struct TurnEnumerator {
    /// Which turns listings give first ([`TurnEnumerator::set_order`]).
    order: TurnOrder,
    /// The pass the last listing was in when it stopped.
    pass: Pass,
    states: HashSet64,
    results: HashSet64,
    /// Results whose turn may not end there (e.g. a forbidden self-elimination).
    rejected: HashSet64,
    /// Pending actions of every open depth, as one stack, so that the
    /// depth-first walk allocates nothing per state.
    actions: Vec<Action>,
    /// What each pending action leads to, beside `actions`.
    children: Vec<Child>,
    /// The position and rules of the last listing, when it stopped early
    /// (by its deadline or its visitor), so that
    /// [`TurnEnumerator::resume_while`] can go on with it.
    stopped: Option<(Position, Rules)>,
    /// Mid-turn states of a stopped listing that are in `states` but not
    /// fully expanded: the states on the walk's path when it stopped, and
    /// the child it was about to enter. A resumed walk enters them again.
    unfinished: Vec<u64>,
    /// See [`ArrivalCache`]: one for the whole walk, cleared a state.
    arrivals: ArrivalCache,
    /// Set by [`TurnEnumerator::count`] for its listing: see [`Walk`]'s field.
    counting: bool,
    /// Whether the last steps that [`EarlierSteps`] covers and
    /// [`Walk::skip`] skips, and the actions at twinned systems
    /// ([`Walk::skips_twins`]), are looked at all the same, so that a test
    /// can check that leaving them out changes no turn and no order.
    list_repeats: bool,
}

impl Default for TurnEnumerator {
    fn default() -> TurnEnumerator {
        TurnEnumerator {
            order: TurnOrder::default(),
            pass: Pass::default(),
            states: HashSet64::with_small_slots(1024, STATE_SMALL_SLOTS),
            results: HashSet64::default(),
            // Mostly unused (a forbidden self-elimination, the CLI's fatal
            // overpopulation): it starts at 16 slots, not 16 KB.
            rejected: HashSet64::with_capacity(0),
            actions: Vec::new(),
            children: Vec::new(),
            stopped: None,
            unfinished: Vec::new(),
            arrivals: ArrivalCache::default(),
            counting: false,
            list_repeats: false,
        }
    }
}

/// What one pending action leads to, worked out for all the actions of a
/// state before any is followed, so that the result lookups of the whole
/// batch are in flight at once (see [`HashSet64::prefetch`]).
#[derive(Clone, Copy)]
struct Child {
    patch: Patch,
    /// For a leaf, the key of its result (the hash after the end of the
    /// turn); otherwise the hash of the mid-turn state.
    key: u64,
    kind: ChildKind,
}

/// What every child of one state shares, for [`Walk::child`].
struct Here {
    overpopulated: bool,
    /// Whether a turn may not remove the mover's home.
    prune_self_elimination: bool,
    slot_hashes: [u64; SLOT_COUNT],
}

/// Which turns a listing gives first. Every order lists the same turns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TurnOrder {
    /// The generator's order alone: the cheapest complete listing.
    #[default]
    Plain,
    /// First the turns made only of actions at the opponent's home and the
    /// systems connected to it (and of sacrifices and catastrophes). Why: a
    /// search for a plan against the opponent's home (a forced win in two)
    /// stops at the first it finds, and in the two-turn suite the plain
    /// order puts it a thousand turns in on average.
    AttackFirst,
}

/// The two passes of a focused listing: first the turns made only of
/// [`Focus`] actions, then every other turn.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Pass {
    Focused,
    #[default]
    Full,
}

/// The actions an attack-first listing takes in its first pass: a
/// sacrifice, a catastrophe, and any action that acts at or arrives in the
/// opponent's home or a system connected to it (as the slots stood at the
/// turn's start). A pure function of the action, so that the memo and the
/// commuting-step rule stay sound within the pass (each pass only lists
/// legal turns, and the full pass lists every turn the first did not).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Focus {
    /// Bit `s` for each slot in focus.
    slots: u32,
    /// Bit `s` for each star size a discovery may have to be connected to
    /// the opponent's home.
    sizes: u8,
}

impl Focus {
    /// The focus of the side to move in `position`: none in setup, or when
    /// the opponent's home is gone.
    fn of(position: &Position) -> Option<Focus> {
        if position.in_setup() {
            return None;
        }
        let home = position.side_to_move().opponent().index() as Slot;
        let home_sizes = position.system(home).size_mask();
        if home_sizes == 0 {
            return None;
        }
        let slots = (0..SLOT_COUNT as Slot)
            .filter(|&slot| {
                let sizes = position.system(slot).size_mask();
                slot == home || (sizes != 0 && sizes & home_sizes == 0)
            })
            .fold(0, |slots, slot| slots | 1 << slot);
        Some(Focus {
            slots,
            sizes: !home_sizes,
        })
    }

    #[inline]
    fn takes(self, action: Action) -> bool {
        let at = |slot: Slot| self.slots & 1 << slot != 0;
        match action {
            Action::Sacrifice { .. } | Action::Catastrophe { .. } => true,
            Action::Move { to, .. } => at(to),
            Action::Discover { star, .. } => self.sizes & 1 << star.size() != 0,
            Action::Build { system, .. }
            | Action::Trade { system, .. }
            | Action::Capture { system, .. } => at(system),
            Action::Homeworld { .. } | Action::Pass => false,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ChildKind {
    /// Every completion would be a forbidden self-elimination.
    Pruned,
    /// Nothing can follow but the end of the turn.
    Leaf,
    /// More actions may follow.
    Inner,
}

impl TurnEnumerator {
    /// The number of distinct legal turns from `position`.
    pub fn count(&mut self, position: &Position, rules: &Rules) -> usize {
        self.states.clear();
        self.results.clear();
        self.rejected.clear();
        self.unfinished.clear();
        self.pass = self.first_pass();
        let mut visit = |_: &[Action], _: &Position, _: Outcome| true;
        self.counting = true;
        self.run(position, rules, None, &mut visit);
        self.counting = false;
        self.results.len()
    }

    /// Calls `visit` once per distinct legal turn with one action sequence that
    /// produces it, its resulting position and the game result.
    pub fn for_each_turn(
        &mut self,
        position: &Position,
        rules: &Rules,
        visit: impl FnMut(&[Action], &Position, Outcome),
    ) {
        self.for_each_turn_until(position, rules, None, visit);
    }

    /// [`TurnEnumerator::for_each_turn`] that gives up at `deadline`, because
    /// a position can have hundreds of thousands of turns and a searcher on
    /// the clock cannot always wait. Returns whether the listing is complete.
    pub fn for_each_turn_until(
        &mut self,
        position: &Position,
        rules: &Rules,
        deadline: Option<Instant>,
        mut visit: impl FnMut(&[Action], &Position, Outcome),
    ) -> bool {
        self.for_each_turn_while(position, rules, deadline, |actions, result, outcome| {
            visit(actions, result, outcome);
            true
        })
    }

    /// [`TurnEnumerator::for_each_turn_until`] whose `visit` can end the
    /// listing early by returning false, for searches that stop at the
    /// first turn of a kind (a forced win found among the opponent's turns
    /// need not wait for the other hundred thousand). Returns false only
    /// when the deadline cut the listing short.
    pub fn for_each_turn_while(
        &mut self,
        position: &Position,
        rules: &Rules,
        deadline: Option<Instant>,
        mut visit: impl FnMut(&[Action], &Position, Outcome) -> bool,
    ) -> bool {
        self.states.clear();
        self.results.clear();
        self.rejected.clear();
        self.unfinished.clear();
        self.pass = self.first_pass();
        self.run(position, rules, deadline, &mut visit)
    }

    /// Goes on with the last listing, when it was of `position` under
    /// `rules` and stopped early (its deadline passed, or its visitor
    /// returned false): `visit` gets only the turns not given before, in
    /// the order an uninterrupted listing gives them. Otherwise it is
    /// [`TurnEnumerator::for_each_turn_while`]. Why: a check on the clock
    /// that stops after 40,000 of 60,000 turns would otherwise list those
    /// 40,000 again before the rest; resumed, it walks only the path back
    /// to where it stopped (the memo of finished states cuts the rest).
    /// Returns as [`TurnEnumerator::for_each_turn_while`] does.
    pub fn resume_while(
        &mut self,
        position: &Position,
        rules: &Rules,
        deadline: Option<Instant>,
        mut visit: impl FnMut(&[Action], &Position, Outcome) -> bool,
    ) -> bool {
        let same = self
            .stopped
            .is_some_and(|(stopped, under)| under == *rules && same_slots(&stopped, position));
        if !same {
            return self.for_each_turn_while(position, rules, deadline, visit);
        }
        self.run(position, rules, deadline, &mut visit)
    }

    /// Whether the last listing stopped early and can be resumed with
    /// [`TurnEnumerator::resume_while`].
    pub fn is_resumable(&self) -> bool {
        self.stopped.is_some()
    }

    /// Sets the order of the next listings (see [`TurnOrder`]): the same
    /// turns, the focused ones first. A complete listing in a focused order
    /// costs its first pass more than the plain one.
    pub fn set_order(&mut self, order: TurnOrder) {
        if self.order != order {
            self.order = order;
            self.stopped = None;
        }
    }

    /// The pass a new listing starts with.
    fn first_pass(&self) -> Pass {
        match self.order {
            TurnOrder::Plain => Pass::Full,
            TurnOrder::AttackFirst => Pass::Focused,
        }
    }

    /// Lists from where the last listing stopped (or from the start, with
    /// the memos cleared): the focused pass, if any, then the full one,
    /// which lists only the results the first did not.
    fn run(
        &mut self,
        position: &Position,
        rules: &Rules,
        deadline: Option<Instant>,
        visit: &mut impl FnMut(&[Action], &Position, Outcome) -> bool,
    ) -> bool {
        if self.pass == Pass::Focused {
            if let Some(focus) = Focus::of(position) {
                let (stopped, out_of_time) =
                    self.walk(position, rules, Some(focus), deadline, visit);
                if stopped {
                    self.stopped = Some((*position, *rules));
                    return !out_of_time;
                }
            }
            // The states the focused pass expanded hold only its turns.
            self.states.clear();
            self.unfinished.clear();
            self.pass = Pass::Full;
        }
        let (stopped, out_of_time) = self.walk(position, rules, None, deadline, visit);
        self.stopped = stopped.then_some((*position, *rules));
        if !stopped {
            self.unfinished.clear();
        }
        !out_of_time
    }

    /// One depth-first walk from `position`, taking only the actions in
    /// `focus` if given. Returns whether it stopped early, and whether by
    /// the deadline.
    fn walk(
        &mut self,
        position: &Position,
        rules: &Rules,
        focus: Option<Focus>,
        deadline: Option<Instant>,
        visit: &mut impl FnMut(&[Action], &Position, Outcome) -> bool,
    ) -> (bool, bool) {
        let counting = self.counting;
        self.actions.clear();
        self.children.clear();
        let mut walk = Walk {
            rules,
            focus,
            deadline,
            expanded: 0,
            stopped: false,
            out_of_time: false,
            states: &mut self.states,
            results: &mut self.results,
            rejected: &mut self.rejected,
            actions: &mut self.actions,
            children: &mut self.children,
            unfinished: &mut self.unfinished,
            arrivals: &mut self.arrivals,
            list_repeats: self.list_repeats,
            counting,
            path: Vec::with_capacity(16),
            settling: Settling::default(),
        };
        walk.explore(position, None, None, None, visit);
        (walk.stopped, walk.out_of_time)
    }
}

/// Whether two positions are the same with the same systems in the same
/// slots: the listing order follows the slots, so only then does a stopped
/// listing of one go on for the other.
fn same_slots(first: &Position, second: &Position) -> bool {
    first == second
        && (0..SLOT_COUNT as Slot).all(|slot| first.slot_word(slot) == second.slot_word(slot))
}

#[cfg(test)]
mod tests;
