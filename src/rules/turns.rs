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

use std::time::Instant;

use super::memory::{Words, HUGE_PAGE};
use super::piece::{Piece, Player};
use super::position::{
    word_size_mask, Action, ArrivalCache, LastYellowSteps, Outcome, Patch, Position, Slot,
    TurnState, HOME_SLOTS, SLOT_COUNT,
};
use super::profile::{Rules, SelfElimination};

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

/// An open-addressing set of non-zero 64-bit keys (position hashes), faster
/// than a general hash set because the keys are already well mixed.
pub struct HashSet64 {
    slots: Words,
    len: usize,
    has_zero: bool,
    /// The slots filled since the last clear, while they are few (equal in
    /// number to `len` exactly when all are here), so that clearing a big
    /// table after a small listing zeroes only them. Why: the threat checker
    /// lists the replies to each threat with one enumerator, mostly a few
    /// hundred turns, after a listing of tens of thousands grew its tables.
    filled: Vec<u32>,
    /// The most slots the table grows to in small pages before it goes
    /// straight to a huge page (see [`HashSet64::grow`]).
    small_slots: usize,
}

impl Default for HashSet64 {
    fn default() -> HashSet64 {
        HashSet64::with_capacity(1024)
    }
}

impl HashSet64 {
    /// A set sized for about `capacity` keys before it grows.
    pub fn with_capacity(capacity: usize) -> HashSet64 {
        HashSet64::with_small_slots(capacity, SMALL_SLOTS)
    }

    /// A set sized for about `capacity` keys that doubles in small pages up
    /// to `small_slots` slots before it goes to a huge page. For a set that
    /// mostly stays at a few thousand keys, such as the enumerator's memo
    /// of mid-turn states: the kernel zeroes a huge page's 2 MB when it is
    /// first touched (about 85 µs), more than a table of 8,192 slots costs
    /// in small pages with the rehashes on the way.
    pub(crate) fn with_small_slots(capacity: usize, small_slots: usize) -> HashSet64 {
        let size = (capacity * 2).next_power_of_two().max(16);
        HashSet64 {
            slots: Words::zeroed(size),
            len: 0,
            has_zero: false,
            filled: Vec::new(),
            small_slots,
        }
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.len + self.has_zero as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every key, keeping the allocation.
    pub fn clear(&mut self) {
        // An enumerator is reused for many small listings after a big one:
        // an empty table need not be swept again, nor a nearly empty one
        // whole.
        if self.filled.len() == self.len {
            for &index in &self.filled {
                self.slots[index as usize] = 0;
            }
        } else {
            self.slots.fill(0);
        }
        self.filled.clear();
        self.len = 0;
        self.has_zero = false;
    }

    /// Asks the processor to start loading the slot where `key` would be,
    /// so that a later [`HashSet64::contains`] or [`HashSet64::insert`] of
    /// it does not wait for memory: a big listing's result set is far
    /// larger than the caches, and each lookup would otherwise miss.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        let index = (key as usize) & (self.slots.len() - 1);
        #[cfg(target_arch = "x86_64")]
        // Safety: `index` is masked to the table's length, so the address
        // lies inside the allocation; a prefetch reads nothing and cannot
        // fault whatever the address.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(self.slots.as_ptr().add(index) as *const i8);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = index;
    }

    /// Whether the key is in the set.
    pub fn contains(&self, key: u64) -> bool {
        if key == 0 {
            return self.has_zero;
        }
        let mask = self.slots.len() - 1;
        let mut index = (key as usize) & mask;
        loop {
            match self.slots[index] {
                0 => return false,
                slot if slot == key => return true,
                _ => index = (index + 1) & mask,
            }
        }
    }

    /// Inserts a key; returns whether it was new.
    #[inline]
    pub fn insert(&mut self, key: u64) -> bool {
        if key == 0 {
            return !std::mem::replace(&mut self.has_zero, true);
        }
        // At most half full: most lookups in a listing find their key, and
        // linear probing past half slows them more than the memory costs.
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut index = (key as usize) & mask;
        loop {
            let slot = self.slots[index];
            if slot == key {
                return false;
            }
            if slot == 0 {
                self.slots[index] = key;
                if self.filled.len() == self.len && self.len < self.slots.len() / FILLED_SHARE {
                    // A slot past `u32` is not remembered, and the clear
                    // sweeps the whole table.
                    if let Ok(index) = u32::try_from(index) {
                        self.filled.push(index);
                    }
                }
                self.len += 1;
                return true;
            }
            index = (index + 1) & mask;
        }
    }

    /// Doubles the table, or past its small size ([`SMALL_SLOTS`] unless
    /// set otherwise) goes straight to a huge page (see [`Words`]). Why: a
    /// listing that outgrows a thousand keys mostly goes on to tens of
    /// thousands, and in a fresh enumerator (a `count`, a search root's
    /// listing) each table on the way cost its page faults and a rehash:
    /// growing 4,096 slots at a time to 32,768 took about 0.4 ms of a 4 ms
    /// `count` process, and one huge page costs one fault, as the kernel
    /// zeroes it.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let mut size = self.slots.len() * 2;
        let huge = HUGE_PAGE / std::mem::size_of::<u64>();
        if size > self.small_slots && size < huge {
            size = huge;
        }
        let old = std::mem::replace(&mut self.slots, Words::zeroed(size));
        self.len = 0;
        self.filled.clear();
        for &key in old.iter().filter(|&&key| key != 0) {
            self.insert(key);
        }
    }
}

/// The most slots a [`HashSet64`] table grows to in small pages (16 KB)
/// before it goes straight to a huge page.
const SMALL_SLOTS: usize = 2048;

/// The most slots the enumerator's memo of mid-turn states grows to in
/// small pages (128 KB): the states of a listing are about a tenth of its
/// results, 2,206 for the reference engine's position A (8,192 slots), and
/// past this size a doubling in small pages (64 faults and a rehash) costs
/// more than a huge page.
const STATE_SMALL_SLOTS: usize = 16384;

/// [`HashSet64`] remembers which slots it filled while at most one in this
/// many is.
const FILLED_SHARE: usize = 16;

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

/// The yellow step (a move or a discovery) that reached the state being
/// expanded, with what its systems held before it, for [`Walk::skip`].
#[derive(Clone, Copy)]
struct LastStep {
    action: Action,
    /// The slot the ship went to (the new system's, for a discovery).
    to: Slot,
    /// The words of the origin and of `to` before the step.
    from_word: u64,
    to_word: u64,
}

/// Which last yellow steps of a state can only repeat results listed
/// before, for [`Walk::list_last_steps`]. The state S was first expanded
/// as the child of a parent P by the yellow step `before` (ship X from
/// slot o to slot d), so P's children listed before `before` were
/// expanded, fully, before S, and P itself was listed as a result (the
/// sacrifice may stop early) before either. Two kinds of last step t are
/// covered.
///
/// **Another ship first.** t moves a ship Y from slot p, where P's
/// generator lists Y's steps from p before X's from o (p < o, or the same
/// slot and a lower ship type), and p is not d. Then the other order, t
/// and then `before`, is legal from P with the same result, and P lists
/// its first step before `before`:
///
/// - a move to a system other than d and o touches neither system of
///   `before`; a move into o arrives before X leaves it; a move into d,
///   where `before` moved X there, arrives before X; where `before`
///   discovered d, t is in P the discovery of d's star by Y (p is
///   connected to that star, since t moves there), and X then moves into
///   the system Y found;
/// - a discovery needs its star in P's bank and a free slot in P, and
///   where `before` is a discovery too, a second free slot for `before`
///   after it: the only star `before` can have handed back is the one of
///   an origin it emptied, and the only slot it can have freed is that
///   origin's, so a free slot of S other than o gives both.
///
/// **The same ship again.** t moves X on from d (an X from d, where
/// `before` moved X into a system that held one: the pieces are the
/// same). Leaving d undoes `before` there (a system `before` found fades
/// again, its star back in the bank), so the result is P with X moved
/// from o straight to t's destination, listed before S where P lists that
/// step first:
///
/// - back to o: P itself;
/// - a move to a system connected to o, which P lists before `before`
///   when that is a discovery (moves come first) or a move to a later
///   slot;
/// - where `before` discovered a star W, the discovery of W again (S
///   itself, listed when S was entered), or of a star listed before W,
///   connected to o and in P's bank.
///
/// The generator lists a step into a system identical to an earlier one
/// only once (rules.md E3), but that step leads to the same result: the
/// key ignores which slot a system is in. A result so reached was listed
/// then, refused then, or skipped in turn by this rule for an even
/// earlier state. Only known results are skipped, so the turns come out
/// in the same order with the same actions as without the rule.
///
/// Unlike [`Walk::skip`], the checks are made once a ship and once a
/// destination, not once a step, and cover the steps that empty their
/// origin or discover a system: in a big listing most last steps do one
/// or the other. In position A of the reference engine's benchmarks they
/// leave out 63,400 of the 130,000 last steps, all repeats. The rule holds
/// only where every step is taken, so a focused pass ([`Focus`]) does
/// without it.
#[derive(Clone, Copy)]
struct EarlierSteps {
    /// o and X's type.
    origin: Slot,
    ship: usize,
    /// d, the system `before` went to.
    destination: Slot,
    /// The star `before` discovered, if it was a discovery.
    discovered: Option<Piece>,
    /// The star sizes of o (bit `s` for size `s`), for the systems
    /// connected to it.
    origin_sizes: u8,
    /// The star nibbles of o when `before` emptied it (its stars went back
    /// to the bank), else zero.
    returned_stars: u64,
    /// Whether P had a free slot for another ship's discovery, and
    /// another for `before` after it where `before` is a discovery.
    free_slot: bool,
}

/// Which ship [`EarlierSteps`] may cover.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Covered {
    /// A ship listed before X in P.
    Other,
    /// X again, from d.
    Same,
}

impl EarlierSteps {
    /// The rule for `position`, reached first by `before`; none when
    /// `before` is not a yellow step.
    fn of(position: &Position, before: LastStep) -> Option<EarlierSteps> {
        let (origin, ship, discovered) = match before.action {
            Action::Move { from, ship, .. } => (from, ship, None),
            Action::Discover { from, ship, star } => (from, ship, Some(star)),
            _ => return None,
        };
        let emptied = position.slot_word(origin) == 0;
        let stars = before.from_word >> 48;
        let origin_sizes = word_size_mask(before.from_word);
        // P's free slots are S's, plus d after a discovery, less o where
        // `before` emptied it. Another ship's discovery covered here needs
        // one in P, and one more after it where `before` is a discovery
        // too: both hold when S has a free slot (it has, since the covered
        // step discovers) that is not o.
        let free_slot = !emptied
            || (HOME_SLOTS as Slot..SLOT_COUNT as Slot)
                .any(|slot| slot != origin && position.slot_word(slot) == 0);
        Some(EarlierSteps {
            origin,
            ship: ship.index(),
            destination: before.to,
            discovered,
            origin_sizes,
            returned_stars: if emptied { stars } else { 0 },
            free_slot,
        })
    }

    /// Whether the steps of a `ship` from `from` may be covered, and how.
    #[inline]
    fn covers_ship(&self, from: Slot, ship: Piece) -> Option<Covered> {
        if from == self.destination {
            (ship.index() == self.ship).then_some(Covered::Same)
        } else {
            (from < self.origin || (from == self.origin && ship.index() < self.ship))
                .then_some(Covered::Other)
        }
    }

    /// Whether a covered ship's move to `to` in `position` is covered.
    #[inline]
    fn covers_move(&self, covered: Covered, position: &Position, to: Slot) -> bool {
        match covered {
            Covered::Other => true,
            Covered::Same => {
                to == self.origin
                    || ((self.discovered.is_some() || to < self.destination)
                        && word_size_mask(position.slot_word(to)) & self.origin_sizes == 0)
            }
        }
    }

    /// Whether a covered ship's discovery of `star` is covered.
    #[inline]
    fn covers_discovery(&self, covered: Covered, star: Piece) -> bool {
        let nibble = star.index() as u64 + 1;
        let in_bank =
            self.returned_stars & 0xF != nibble && (self.returned_stars >> 4) & 0xF != nibble;
        match covered {
            Covered::Other => self.free_slot && in_bank,
            Covered::Same => self.discovered.is_some_and(|found| {
                found == star
                    || (star.index() < found.index()
                        && self.origin_sizes & 1 << star.size() == 0
                        && in_bank)
            }),
        }
    }
}

/// A yellow step's place in the generator's order within one state.
type ListingOrder = (Slot, usize, usize);

/// Where a yellow step starts, where it goes (the destination slot of a
/// move, or none for a discovery, whose slot is not part of the action) and
/// its place in the generator's order within one state: by origin, ship,
/// then moves by destination before discoveries by star.
fn yellow_step(action: Action) -> Option<(Slot, Option<Slot>, ListingOrder)> {
    match action {
        Action::Move { from, to, ship } => {
            Some((from, Some(to), (from, ship.index(), to as usize)))
        }
        Action::Discover { from, ship, star } => Some((
            from,
            None,
            (from, ship.index(), usize::from(u8::MAX) + 1 + star.index()),
        )),
        _ => None,
    }
}

/// The state of one depth-first enumeration.
struct Walk<'a> {
    rules: &'a Rules,
    /// Only these actions, in a focused pass.
    focus: Option<Focus>,
    /// When to give up, checked every 1,024 expanded states.
    deadline: Option<Instant>,
    expanded: u64,
    /// Set when the listing ends early, by the deadline or the visitor.
    stopped: bool,
    /// Set when the deadline ended the listing.
    out_of_time: bool,
    states: &'a mut HashSet64,
    results: &'a mut HashSet64,
    rejected: &'a mut HashSet64,
    actions: &'a mut Vec<Action>,
    children: &'a mut Vec<Child>,
    /// See [`TurnEnumerator`]'s field.
    unfinished: &'a mut Vec<u64>,
    /// See [`TurnEnumerator`]'s field.
    arrivals: &'a mut ArrivalCache,
    /// See [`TurnEnumerator`]'s field.
    list_repeats: bool,
    /// Whether only the number of results is wanted ([`TurnEnumerator::count`]):
    /// then a leaf whose turn is known to end or not ([`leaf_ends`]) is
    /// counted without its position being built, and a last step keyed
    /// from the slot words is not even queued ([`Walk::settle`]).
    counting: bool,
    path: Vec<Action>,
    /// See [`Settling`].
    settling: Settling,
}

/// Whether the turn of a leaf of `position` (after setup) with `patch` may
/// end, where that is known without building its position: as the state
/// does (`ends`) where both homes stay as they are, and yes where a home
/// is rewritten but both players keep a live one
/// ([`Position::both_alive_after`]); none otherwise.
#[inline]
fn leaf_ends(position: &Position, patch: &Patch, ends: bool) -> Option<bool> {
    if patch
        .writes()
        .iter()
        .all(|&(slot, _)| slot as usize >= HOME_SLOTS)
    {
        Some(ends)
    } else {
        position.both_alive_after(patch).then_some(true)
    }
}

/// How many leaves [`Walk::settle`] keeps in flight.
const SETTLING: usize = 8;

/// The last leaves of a counting walk, keyed and with whether their turns
/// may end, waiting for their result slots to load (see
/// [`HashSet64::prefetch`]).
#[derive(Default)]
struct Settling {
    leaves: [(u64, bool); SETTLING],
    /// Leaves queued since the last [`Walk::settle_all`].
    queued: usize,
}

impl Walk<'_> {
    /// Whether the actions at a system identical to an earlier one are left
    /// out ([`Position::for_each_distinct_action`]): their states and
    /// results repeat those of the earlier system's, listed first. Not in a
    /// focused pass, whose focus is by the slots as they stood at the
    /// turn's start, so that it may take an action at one twin and not the
    /// same action at the other.
    #[inline]
    fn skips_twins(&self) -> bool {
        self.focus.is_none() && !self.list_repeats
    }

    /// Counts the leaf `key` of a counting walk (see [`Settling`]) once its
    /// slot has had time to load: the leaf queued [`SETTLING`] leaves
    /// before is looked up now.
    #[inline(always)]
    fn settle(&mut self, key: u64, ends: bool) {
        self.results.prefetch(key);
        let index = self.settling.queued % SETTLING;
        if self.settling.queued >= SETTLING {
            let (earlier, earlier_ends) = self.settling.leaves[index];
            self.count_result(earlier, earlier_ends);
        }
        self.settling.leaves[index] = (key, ends);
        self.settling.queued += 1;
    }

    /// Looks up the leaves still queued by [`Walk::settle`].
    fn settle_all(&mut self) {
        let queued = self.settling.queued;
        for number in queued.saturating_sub(SETTLING)..queued {
            let (key, ends) = self.settling.leaves[number % SETTLING];
            self.count_result(key, ends);
        }
        self.settling.queued = 0;
    }

    /// Whether the result with this key is already listed or refused.
    #[inline]
    fn known(&self, key: u64) -> bool {
        self.results.contains(key) || (!self.rejected.is_empty() && self.rejected.contains(key))
    }

    /// Records a result of a counting walk as listed, or as refused where
    /// the turn may not end there, unless it is already. Why no lookup in
    /// the other set first ([`Walk::known`]): after setup whether a turn
    /// may end depends only on its result, so a key is only ever in the
    /// set of its verdict, and one insert both looks it up and adds it.
    #[inline]
    fn count_result(&mut self, key: u64, ends: bool) {
        if ends {
            self.results.insert(key);
        } else {
            self.rejected.insert(key);
        }
    }

    fn record(
        &mut self,
        position: &Position,
        visit: &mut impl FnMut(&[Action], &Position, Outcome) -> bool,
    ) {
        let key = position.hash_after_end();
        if self.known(key) {
            return;
        }
        self.record_new(position, key, visit);
    }

    /// [`Walk::record`] for a result known to be new, with its key.
    fn record_new(
        &mut self,
        position: &Position,
        key: u64,
        visit: &mut impl FnMut(&[Action], &Position, Outcome) -> bool,
    ) {
        let mut ended = *position;
        match ended.end_turn(self.rules) {
            Ok(outcome) => {
                self.results.insert(key);
                if !visit(&self.path, &ended, outcome) {
                    self.stopped = true;
                }
            }
            // Whether a turn may end depends only on where it ends, except
            // in setup: a setup pass (`Rules::setup_pass`) ends where the
            // refused empty turn would have.
            Err(_) => {
                if !position.in_setup() {
                    self.rejected.insert(key);
                }
            }
        }
    }

    /// Whether `key`, a state already in the memo, was left unfinished by
    /// a stopped listing (and so must be entered again), forgetting it.
    fn take_unfinished(&mut self, key: u64) -> bool {
        match self.unfinished.iter().position(|&left| left == key) {
            Some(index) => {
                self.unfinished.swap_remove(index);
                true
            }
            None => false,
        }
    }

    /// Lists the turns through `position`, a mid-turn state (with its memo
    /// key; none for the root) reached by `last_step`. `overpopulated`:
    /// whether a system is, where the caller knows.
    fn explore(
        &mut self,
        position: &Position,
        key: Option<u64>,
        last_step: Option<LastStep>,
        overpopulated: Option<bool>,
        visit: &mut impl FnMut(&[Action], &Position, Outcome) -> bool,
    ) {
        // After setup, whether a turn may end depends only on the homes
        // (`Position::end_turn`: self-elimination, the CLI's fatal
        // overpopulation): this state ends as any leaf that leaves both
        // homes as they are. A counting walk works that out once here, not
        // once a new result. In setup the turn state matters too (a setup
        // pass ends where an empty turn may not).
        let in_setup = position.in_setup();
        let ends = (self.counting && !in_setup).then(|| {
            // Both players alive: nothing refuses the end (see `leaf_ends`).
            (position.is_alive(Player::First) && position.is_alive(Player::Second)) || {
                let mut ended = *position;
                ended.end_turn(self.rules).is_ok()
            }
        });
        match ends {
            Some(ends) => self.count_result(position.hash_after_end(), ends),
            None => self.record(position, visit),
        }
        let first = self.actions.len();
        let here = Here {
            overpopulated: overpopulated.unwrap_or_else(|| position.has_overpopulation()),
            prune_self_elimination: self.rules.self_elimination == SelfElimination::Illegal
                && !position.in_setup(),
            slot_hashes: position.slot_hashes(),
        };
        debug_assert_eq!(
            here.overpopulated,
            position.has_overpopulation(),
            "a child's overpopulation is its patch's"
        );
        // The last step of a yellow sacrifice, most of a big listing.
        let steps = position.last_yellow_steps(
            here.overpopulated,
            &here.slot_hashes,
            here.prune_self_elimination,
        );
        // Or an earlier step, keyed the same way, where all are listed.
        let inner = || {
            self.focus.is_none().then(|| {
                position.inner_yellow_steps(
                    here.overpopulated,
                    &here.slot_hashes,
                    here.prune_self_elimination,
                )
            })?
        };
        match steps {
            Some(steps) => self.list_last_steps(position, &here, &steps, last_step, ends),
            None => match inner() {
                Some(steps) => self.list_yellow_steps(position, &here, &steps, last_step),
                None => {
                    let focus = self.focus;
                    let distinct = self.skips_twins();
                    let push = |action| {
                        if focus.is_none_or(|focus| focus.takes(action)) {
                            self.actions.push(action);
                        }
                    };
                    if distinct {
                        position.for_each_distinct_action(self.rules, push);
                    } else {
                        position.for_each_action(self.rules, push);
                    }
                    self.classify(position, &here, last_step, first);
                }
            },
        }
        let last = self.actions.len();
        for index in first..last {
            if self.stopped {
                break;
            }
            let Child { patch, key, kind } = self.children[index];
            match kind {
                ChildKind::Pruned => {}
                ChildKind::Leaf => {
                    // Most leaves repeat a known result: look it up by key
                    // before paying for a copy.
                    if self.known(key) {
                        continue;
                    }
                    if let Some(ends) = ends.and_then(|ends| leaf_ends(position, &patch, ends)) {
                        self.count_result(key, ends);
                        continue;
                    }
                    debug_assert_eq!(
                        patch,
                        position.patch(self.rules, self.actions[index]),
                        "a leaf's patch is its action's"
                    );
                    debug_assert_eq!(
                        key,
                        patch.hash_after_end(position.patched_hash(&patch)),
                        "a step's key is its result's"
                    );
                    let mut next = *position;
                    next.apply_patch_hashed(&patch, patch.hash_before_end(key));
                    self.path.push(self.actions[index]);
                    self.record_new(&next, key, visit);
                    self.path.pop();
                }
                ChildKind::Inner => {
                    if !self.states.insert(key)
                        && (self.unfinished.is_empty() || !self.take_unfinished(key))
                    {
                        continue;
                    }
                    self.expanded += 1;
                    if self.expanded % 1024 == 0
                        && self
                            .deadline
                            .is_some_and(|deadline| Instant::now() >= deadline)
                    {
                        self.stopped = true;
                        self.out_of_time = true;
                        // In the memo, but not entered.
                        self.unfinished.push(key);
                        break;
                    }
                    let action = self.actions[index];
                    let last_step = match (action, patch.writes()) {
                        (
                            Action::Move { from, .. } | Action::Discover { from, .. },
                            &[_, (to, _)],
                        ) => Some(LastStep {
                            action,
                            to,
                            from_word: position.slot_word(from),
                            to_word: position.slot_word(to),
                        }),
                        _ => None,
                    };
                    let mut next = *position;
                    next.apply_patch_hashed(&patch, key);
                    self.path.push(action);
                    // Without an overpopulated system here, only the
                    // systems the action rewrote can hold one.
                    let overpopulated = (!here.overpopulated).then(|| patch.overpopulates());
                    self.explore(&next, Some(key), last_step, overpopulated, visit);
                    self.path.pop();
                }
            }
        }
        self.actions.truncate(first);
        self.children.truncate(first);
        // A stop leaves every state on the path unfinished, this one too
        // even if its last child was being explored.
        if self.stopped {
            if let Some(key) = key {
                self.unfinished.push(key);
            }
        }
    }

    /// Works out what each of the actions from `first` on (children of
    /// `position`) leads to, and starts loading the result slots of the
    /// leaves.
    fn classify(
        &mut self,
        position: &Position,
        here: &Here,
        last_step: Option<LastStep>,
        first: usize,
    ) {
        self.children.truncate(first);
        for index in first..self.actions.len() {
            let child = self.child(position, here, self.actions[index], last_step);
            self.children.push(child);
        }
    }

    /// Lists the children of `position`, the last action of a yellow
    /// sacrifice, in the generator's order, keying each leaf and writing
    /// its patch from the slot words ([`LastYellowSteps`]). The steps that
    /// [`EarlierSteps`] proves listed before are left out, a ship at a time;
    /// lookups are cheap enough here that the per-step commuting rule would
    /// not pay for its checks. A step whose arrival overpopulates, or that
    /// removes the mover's home, goes the general way.
    fn list_last_steps(
        &mut self,
        position: &Position,
        here: &Here,
        steps: &LastYellowSteps,
        last_step: Option<LastStep>,
        ends: Option<bool>,
    ) {
        let rules = self.rules;
        // Not in a focused pass: the memo there holds a state in whichever
        // form it was first reached, and the focus, being by slot, may take
        // in one form a step it leaves out in another (two systems with the
        // same star swap their ships), so a state's focused expansion need
        // not list every result the rule assumes.
        let earlier = last_step
            .filter(|_| self.focus.is_none() && !self.list_repeats)
            .and_then(|before| EarlierSteps::of(position, before));
        self.arrivals.clear();
        position.for_each_yellow_origin(self.skips_twins(), |from, own, targets| {
            for ship in own.types() {
                let covered = earlier.and_then(|earlier| {
                    earlier
                        .covers_ship(from, ship)
                        .map(|covered| (earlier, covered))
                });
                let leaving = steps.leaving(position, rules, from, ship);
                for to in targets.destinations() {
                    if covered.is_some_and(|(earlier, covered)| {
                        earlier.covers_move(covered, position, to)
                    }) {
                        continue;
                    }
                    let step = leaving.and_then(|leaving| {
                        steps.move_step(self.arrivals, position, leaving, to, ship)
                    });
                    self.last_step(position, here, Action::Move { from, to, ship }, step, ends);
                }
                for star in targets.stars() {
                    if covered
                        .is_some_and(|(earlier, covered)| earlier.covers_discovery(covered, star))
                    {
                        continue;
                    }
                    let step =
                        leaving.and_then(|leaving| steps.discovery_step(leaving, ship, star));
                    self.last_step(
                        position,
                        here,
                        Action::Discover { from, ship, star },
                        step,
                        ends,
                    );
                }
            }
        });
        self.settle_all();
    }

    /// Lists the children of `position`, a yellow sacrifice with more than
    /// one step left, as [`Walk::classify`] does, in the generator's order:
    /// each is a mid-turn state keyed from the slot words
    /// ([`Position::inner_yellow_steps`]), or worked out the general way
    /// where an arrival overpopulates or the mover's home would go.
    fn list_yellow_steps(
        &mut self,
        position: &Position,
        here: &Here,
        steps: &LastYellowSteps,
        last_step: Option<LastStep>,
    ) {
        let rules = self.rules;
        debug_assert_eq!(self.children.len(), self.actions.len());
        self.arrivals.clear();
        position.for_each_yellow_origin(self.skips_twins(), |from, own, targets| {
            for ship in own.types() {
                let leaving = steps.leaving(position, rules, from, ship);
                for to in targets.destinations() {
                    let step = leaving.and_then(|leaving| {
                        steps.move_step(self.arrivals, position, leaving, to, ship)
                    });
                    self.yellow_child(
                        position,
                        here,
                        Action::Move { from, to, ship },
                        step,
                        last_step,
                    );
                }
                for star in targets.stars() {
                    let step =
                        leaving.and_then(|leaving| steps.discovery_step(leaving, ship, star));
                    self.yellow_child(
                        position,
                        here,
                        Action::Discover { from, ship, star },
                        step,
                        last_step,
                    );
                }
            }
        });
    }

    /// One child of [`Walk::list_yellow_steps`].
    #[inline(always)]
    fn yellow_child(
        &mut self,
        position: &Position,
        here: &Here,
        action: Action,
        step: Option<(u64, Patch)>,
        last_step: Option<LastStep>,
    ) {
        let child = match step {
            Some((key, patch)) => {
                debug_assert_eq!(
                    (patch, key),
                    {
                        let general = position.patch(self.rules, action);
                        (general, position.patched_hash(&general))
                    },
                    "a step keyed from the slot words is the general one"
                );
                // Its memo slot is looked up when the child is reached.
                self.states.prefetch(key);
                Child {
                    patch,
                    key,
                    kind: ChildKind::Inner,
                }
            }
            None => self.child(position, here, action, last_step),
        };
        self.actions.push(action);
        self.children.push(child);
    }

    /// One child of [`Walk::list_last_steps`]: a leaf keyed from the slot
    /// words where `step` gives its key and patch, the general way
    /// otherwise.
    #[inline(always)]
    fn last_step(
        &mut self,
        position: &Position,
        here: &Here,
        action: Action,
        step: Option<(u64, Patch)>,
        ends: Option<bool>,
    ) {
        if self.focus.is_some_and(|focus| !focus.takes(action)) {
            return;
        }
        // A counting walk settles a leaf by its key and whether its turn
        // may end, where both are known without its position.
        if let (Some(ends), Some((key, patch))) = (ends, step) {
            if let Some(ends) = leaf_ends(position, &patch, ends) {
                self.settle(key, ends);
                return;
            }
        }
        self.actions.push(action);
        match step {
            Some((key, patch)) => {
                self.results.prefetch(key);
                self.children.push(Child {
                    patch,
                    key,
                    kind: ChildKind::Leaf,
                });
            }
            None => {
                let child = self.child(position, here, action, None);
                self.children.push(child);
            }
        }
    }

    /// What `action` from `position` leads to, in general (see
    /// [`Walk::classify`]).
    #[inline(always)]
    fn child(
        &self,
        position: &Position,
        here: &Here,
        action: Action,
        last_step: Option<LastStep>,
    ) -> Child {
        let patch = position.patch(self.rules, action);
        let pruned = Child {
            patch,
            key: 0,
            kind: ChildKind::Pruned,
        };
        if here.prune_self_elimination && patch.destroys_home(position.side_to_move()) {
            return pruned;
        }
        // After the core only catastrophes remain, and only where a
        // system is overpopulated. With none here, only a piece added
        // to a system (a build, a trade's new colour, a move's arrival:
        // the patch's last write) can make one; a discovery's new
        // system holds two pieces.
        let leaf = patch.turn_state() == TurnState::Done
            && if here.overpopulated {
                let mut next = *position;
                next.apply_patch(&patch);
                !next.has_overpopulation()
            } else {
                !matches!(
                    action,
                    Action::Build { .. } | Action::Trade { .. } | Action::Move { .. }
                ) || patch.last_write_overpopulated() == 0
            };
        if leaf
            && !self.list_repeats
            && last_step.is_some_and(|before| Walk::skip(position, before, action, &patch))
        {
            return pruned;
        }
        let hash = position.patched_hash_with(&patch, &here.slot_hashes);
        if leaf {
            let key = patch.hash_after_end(hash);
            self.results.prefetch(key);
            Child {
                patch,
                key,
                kind: ChildKind::Leaf,
            }
        } else {
            // Its memo slot is looked up when the child is reached.
            self.states.prefetch(hash);
            Child {
                patch,
                key: hash,
                kind: ChildKind::Inner,
            }
        }
    }

    /// Whether the last step `action` (a leaf: nothing but the end of the
    /// turn follows it) from `position` can only repeat a result already
    /// listed, so that it need not be looked at. `position` was first
    /// expanded as the child, by the yellow step `before`, of a parent P.
    ///
    /// It can when `action` is a yellow step too, listed before `before`
    /// in P, and the two commute: then P's child by `action` was expanded
    /// (then or earlier, with the memo) before P reached `before`, and its
    /// leaf by `before` is the same result, listed then, or skipped in
    /// turn for an even earlier state by the same rule.
    ///
    /// They commute when they go to two different systems and, where a
    /// discovery is involved, neither empties its origin (which would hand
    /// a star back to the bank and free a slot), in three cases: they share
    /// no system but perhaps their origin; `action` moves into the origin
    /// of `before` (which still stands, since `action` can go there); or
    /// `action` leaves the destination of `before` with a ship that was
    /// there before, leaving a ship behind. Each slot then changes by the
    /// same pieces in either order, no system fades in between, and each
    /// step is legal without the other. The generator must also list each
    /// in the other order: it leaves out a move into a system identical to
    /// an earlier one (rules.md E3), so no earlier system may be identical
    /// to a destination as it stands in the other order.
    fn skip(position: &Position, before: LastStep, action: Action, patch: &Patch) -> bool {
        let Some((from, to, order)) = yellow_step(action) else {
            return false;
        };
        let Some((before_from, before_move_to, before_order)) = yellow_step(before.action) else {
            return false;
        };
        if order >= before_order {
            return false;
        }
        let &[(_, from_after), (destination, _)] = patch.writes() else {
            return false;
        };
        let before_to = before.to;
        let into_before_origin = destination == before_from;
        let out_of_before_destination = from == before_to;
        if destination == before_to
            || (into_before_origin && out_of_before_destination)
            || (out_of_before_destination && before_move_to.is_none())
        {
            return false;
        }
        let discovery = to.is_none() || before_move_to.is_none();
        if discovery && (position.slot_word(before_from) == 0 || from_after == 0) {
            return false;
        }
        let home = |slot: Slot| (slot as usize) < HOME_SLOTS;
        // Whether a non-home slot before `limit`, other than `origin`,
        // holds `target` in `position` with the slots of `changed` replaced.
        let earlier_copy = |target: u64, limit: Slot, origin: Slot, changed: &[(Slot, u64)]| {
            (HOME_SLOTS as Slot..limit).any(|slot| {
                let word = changed
                    .iter()
                    .find(|&&(changed_slot, _)| changed_slot == slot)
                    .map_or_else(|| position.slot_word(slot), |&(_, word)| word);
                slot != origin && word != 0 && word == target
            })
        };
        let me = position.side_to_move().index();
        let ship = match action {
            Action::Move { ship, .. } | Action::Discover { ship, .. } => ship,
            _ => return false,
        };
        let unit = 1u64 << (24 * me + 2 * ship.index());
        let before_to_after = before.to_word.wrapping_sub(unit);
        if out_of_before_destination {
            // In P the destination of `before` already held this ship, and
            // keeps a ship without it.
            let fleet_count = (before.to_word >> (24 * me + 2 * ship.index())) & 3;
            if fleet_count == 0 || before_to_after & 0xFFFF_FFFF_FFFF == 0 {
                return false;
            }
        }
        // `action` is listed in P.
        if let Some(to) = to.filter(|&to| !home(to)) {
            if into_before_origin {
                let changed = [(
                    before_to,
                    if before_move_to.is_some() {
                        before.to_word
                    } else {
                        0
                    },
                )];
                if earlier_copy(before.from_word, to, from, &changed) {
                    return false;
                }
            } else {
                let target = position.slot_word(to);
                if before_from != from
                    && !home(before_from)
                    && before_from < to
                    && before.from_word == target
                {
                    return false;
                }
                if before_move_to.is_some()
                    && before_to != from
                    && !home(before_to)
                    && before_to < to
                    && before.to_word == target
                {
                    return false;
                }
            }
        }
        // `before`, if a move, is listed after `action`.
        if before_move_to.is_some() && !home(before_to) {
            if out_of_before_destination {
                if earlier_copy(before_to_after, before_to, before_from, patch.writes()) {
                    return false;
                }
            } else {
                for &(slot, word) in patch.writes() {
                    if slot != before_from
                        && !home(slot)
                        && slot < before_to
                        && word == before.to_word
                    {
                        return false;
                    }
                }
            }
        }
        true
    }
}

impl Position {
    /// Every distinct legal turn. Convenient but allocating; use a
    /// [`TurnEnumerator`] in loops.
    ///
    /// ```
    /// use supernova::rules::{Action, Colour, Piece, Position, Rules};
    ///
    /// // Set up both homes: player 0 at a Small red and Large blue binary
    /// // star with a Large green ship, player 1 at Medium yellow and Small
    /// // blue with a Large green ship.
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
    /// // Player 0 may build a green ship, trade the green ship for each
    /// // other colour, sacrifice it, or pass: six distinct turns.
    /// let turns = position.legal_turns(&rules);
    /// assert_eq!(turns.len(), 6);
    /// assert_eq!(position.count_turns(&rules), 6);
    /// let build = Action::Build { system: 0, piece: piece(Colour::Green, 1) };
    /// assert!(turns.iter().any(|turn| turn.actions == [build]));
    /// assert!(turns.iter().any(|turn| turn.actions.is_empty()), "the pass");
    /// ```
    pub fn legal_turns(&self, rules: &Rules) -> Vec<Turn> {
        let mut turns = Vec::new();
        TurnEnumerator::default().for_each_turn(self, rules, |actions, result, outcome| {
            turns.push(Turn {
                actions: actions.to_vec(),
                result: *result,
                outcome,
            })
        });
        turns
    }

    /// The number of distinct legal turns (the Homeworlds perft count).
    pub fn count_turns(&self, rules: &Rules) -> usize {
        TurnEnumerator::default().count(self, rules)
    }
}

#[cfg(test)]
mod tests {
    use super::{HashSet64, TurnEnumerator, STATE_SMALL_SLOTS};
    use crate::rules::memory::HUGE_PAGE;
    use crate::rules::position::{System, HOME_SLOTS, SLOT_COUNT};
    use crate::rules::{Action, Colour, Outcome, Piece, Player, Position, Rules, TurnState};

    /// Random games from the start under each rule profile: at every
    /// position the listing that leaves out the last steps
    /// [`super::EarlierSteps`] covers and [`super::Walk::skip`] skips, and
    /// the actions at twinned systems ([`super::Walk::skips_twins`]), is the
    /// same, turn for turn and in the same order, as the listing that looks
    /// at them, the count is the listing's, and the listing holds every
    /// result the plain way finds ([`every_result`]). Why: the rules may
    /// only leave out results listed before; one that left out a result
    /// listed only later would keep the counts (which the perft tests
    /// check) and change the order.
    #[test]
    fn covered_last_steps_change_no_turn_and_no_order() {
        let mut big = 0;
        for rules in [Rules::STANDARD, Rules::CLI, Rules::SDG] {
            for seed in 1..=5u64 {
                let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let mut position = Position::start();
                for _ in 0..80 {
                    let listed = checked_listing(&position, &rules);
                    big += usize::from(listed.len() > 2_000);
                    // A random turn that does not end the game, mostly one
                    // that adds a ship (a build), so that the fleets grow
                    // and the games reach wide positions.
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let ongoing =
                        |turn: &&(Vec<Action>, Position, Outcome)| turn.2 == Outcome::Ongoing;
                    let builds: Vec<_> = listed
                        .iter()
                        .filter(ongoing)
                        .filter(|turn| matches!(turn.0.as_slice(), [Action::Build { .. }]))
                        .collect();
                    let pool: Vec<_> = if state % 4 != 0 && !builds.is_empty() {
                        builds
                    } else {
                        listed.iter().filter(ongoing).collect()
                    };
                    let Some(&&(_, result, _)) = pool.get(state as usize / 4 % pool.len().max(1))
                    else {
                        break;
                    };
                    position = result;
                }
            }
        }
        assert!(big >= 20, "only {big} wide positions were compared");
    }

    /// The listing of `position` under `rules`, looking at the last steps
    /// that can only repeat a listed result or not.
    fn listing(
        position: &Position,
        rules: &Rules,
        list_repeats: bool,
    ) -> Vec<(Vec<Action>, Position, Outcome)> {
        let mut enumerator = TurnEnumerator {
            list_repeats,
            ..TurnEnumerator::default()
        };
        let mut turns = Vec::new();
        enumerator.for_each_turn(position, rules, |actions, result, outcome| {
            turns.push((actions.to_vec(), *result, outcome))
        });
        turns
    }

    /// Random crowded maps (one free slot or none, a bank of a few pieces,
    /// homes of one star or two), where player 0 can sacrifice a large
    /// yellow ship: the listing is the same with and without the last
    /// steps that can only repeat a listed result, the count is the
    /// listing's, and the listing holds every result the plain way finds.
    /// Random games seldom fill the map, and there the free
    /// slots decide which steps may be taken in the other order. Session
    /// 52's rule assumed that where `before` discovered, P had room for
    /// another ship's discovery and then for `before`'s: it left out 2 of
    /// the 11,116 turns of one map built here, under `standard`.
    #[test]
    fn covered_last_steps_change_no_turn_on_crowded_maps() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as usize % bound
        };
        let yellow_large = Piece::new(Colour::Yellow, 3).unwrap();
        let mut full = 0;
        for _ in 0..2_000 {
            if full == 30 {
                break;
            }
            // Every piece but one large yellow, shuffled.
            let mut deck: Vec<Piece> = (0..Piece::COUNT * 3)
                .map(|index| Piece::from_index(index / 3).unwrap())
                .collect();
            deck.swap_remove(yellow_large.index() * 3);
            for index in (1..deck.len()).rev() {
                deck.swap(index, next(index + 1));
            }
            let mut homes = [System::default(); 2];
            for (player, home) in homes.iter_mut().enumerate() {
                for _ in 0..1 + usize::from(next(4) == 0) {
                    home.stars.add(deck.pop().unwrap());
                }
                home.ships[player].add(deck.pop().unwrap());
                if next(8) == 0 {
                    home.ships[1 - player].add(deck.pop().unwrap());
                }
            }
            let bank = next(3);
            let mut others = Vec::new();
            while deck.len() >= bank + 2 && others.len() < SLOT_COUNT - HOME_SLOTS {
                let mut system = System::default();
                system.stars.add(deck.pop().unwrap());
                let ships = if next(8) == 0 && deck.len() > bank + 1 {
                    2
                } else {
                    1
                };
                for _ in 0..ships {
                    system.ships[usize::from(next(3) != 0)].add(deck.pop().unwrap());
                }
                others.push(system);
            }
            // The large yellow ship goes to player 0, at home or abroad.
            let place = next(others.len() + 1);
            match others.get_mut(place) {
                Some(system) => system.ships[0].add(yellow_large),
                None => homes[0].ships[0].add(yellow_large),
            }
            let Ok(position) = Position::from_parts(
                homes.map(Some),
                [true, true],
                &others,
                Player::First,
                TurnState::Start,
            ) else {
                continue;
            };
            // One free slot or none: the maps random games seldom reach.
            if others.len() + 1 < SLOT_COUNT - HOME_SLOTS {
                continue;
            }
            full += 1;
            for rules in [Rules::STANDARD, Rules::CLI, Rules::SDG] {
                checked_listing(&position, &rules);
            }
        }
        assert!(full == 30, "only {full} crowded maps in 2,000 tries");
    }

    /// The listing of `position` under `rules`, after checking that it is
    /// the same turn for turn with the repeat rules off, that the count is
    /// its length, and that it holds every result [`every_result`] finds.
    fn checked_listing(
        position: &Position,
        rules: &Rules,
    ) -> Vec<(Vec<Action>, Position, Outcome)> {
        let listed = listing(position, rules, false);
        let all = listing(position, rules, true);
        assert!(
            listed == all,
            "{rules:?}: {} turns listed, {} in all, from {position:?}",
            listed.len(),
            all.len()
        );
        assert_eq!(
            TurnEnumerator::default().count(position, rules),
            listed.len(),
            "{rules:?}: the count is not the listing's, from {position:?}"
        );
        assert!(
            sorted_results(&listed) == every_result(position, rules),
            "{rules:?}: the listing is not every result, from {position:?}"
        );
        listed
    }

    /// The hashes of a listing's results, sorted.
    fn sorted_results(listed: &[(Vec<Action>, Position, Outcome)]) -> Vec<u64> {
        let mut results: Vec<u64> = listed.iter().map(|turn| turn.1.hash()).collect();
        results.sort_unstable();
        results
    }

    /// The hashes of every position a turn from `position` can end in,
    /// sorted, found the plain way: every action of every state reached
    /// (a state once), each state ended where it may end. Why: it shares
    /// none of the enumerator's shortcuts (the keying of last steps, the
    /// rules that leave out repeats, the counting walk), only the generator
    /// and the rules of a single action, which the invariant tests check
    /// against the rules checker; and the reference counts exist for `cli`
    /// alone.
    fn every_result(position: &Position, rules: &Rules) -> Vec<u64> {
        let mut seen = std::collections::HashSet::new();
        let mut results = std::collections::HashSet::new();
        let mut stack = vec![*position];
        seen.insert(position.hash());
        while let Some(state) = stack.pop() {
            let mut ended = state;
            if ended.end_turn(rules).is_ok() {
                results.insert(ended.hash());
            }
            state.for_each_action(rules, |action| {
                let mut next = state;
                next.try_apply(rules, action)
                    .expect("the generator's actions are legal");
                if seen.insert(next.hash()) {
                    stack.push(next);
                }
            });
        }
        let mut results: Vec<u64> = results.into_iter().collect();
        results.sort_unstable();
        results
    }

    /// Well-mixed keys, as position hashes are.
    fn keys(seed: u64, count: usize) -> Vec<u64> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut key = state;
                key = (key ^ (key >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                key = (key ^ (key >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                key ^ (key >> 31)
            })
            .collect()
    }

    #[test]
    fn a_set_cleared_after_big_or_small_use_holds_nothing_and_takes_keys_again() {
        // The state memo's growth in small pages takes the same keys.
        for mut set in [
            HashSet64::default(),
            HashSet64::with_small_slots(1024, STATE_SMALL_SLOTS),
        ] {
            check_clears(&mut set);
        }
        // A default set goes from 2,048 slots straight to a huge page; the
        // memo of a listing of a few thousand states stays in small ones.
        for (mut set, slots) in [
            (HashSet64::default(), HUGE_PAGE / 8),
            (HashSet64::with_small_slots(1024, STATE_SMALL_SLOTS), 8192),
        ] {
            for key in keys(7, 2206) {
                set.insert(key);
            }
            assert_eq!((set.len(), set.slots.len()), (2206, slots));
        }
    }

    fn check_clears(set: &mut HashSet64) {
        // Past the huge table (a quarter of a million slots) and back, then
        // small listings in the big table, whose clears zero only their slots.
        for (round, count) in [(1, 5), (2, 200_000), (3, 40), (4, 3), (5, 9_000), (6, 0)] {
            let inserted = keys(round, count);
            for &key in &inserted {
                assert!(set.insert(key));
                assert!(!set.insert(key), "a key goes in once");
            }
            assert_eq!(set.len(), count);
            assert!(inserted.iter().all(|&key| set.contains(key)));
            set.clear();
            assert!(set.is_empty());
            for earlier in 1..=round {
                assert!(
                    keys(earlier, 200_000).iter().all(|&key| !set.contains(key)),
                    "round {round}: a cleared key of round {earlier} is gone"
                );
            }
        }
        assert!(set.insert(0) && set.contains(0) && set.len() == 1);
        set.clear();
        assert!(!set.contains(0));
    }
}
