//! The depth-first walk of one listing: a state at a time, its children
//! listed, classified and followed.
//!
//! # A state
//! [`Walk::explore`] first records the state itself as a result (the turn
//! may end there), then lists its children by the cheapest way that is
//! exact for it ([`Walk::list_children`]):
//! - the last step of a yellow sacrifice, keyed from the slot words
//!   (`LastYellowSteps`) straight from the generator's per-slot target
//!   masks, with the steps [`EarlierSteps`] proves repeats left out;
//! - an earlier yellow step, keyed the same way (`inner_yellow_steps`), in
//!   the generator's order;
//! - otherwise the general generator, each action's [`Patch`] worked out
//!   and its child hashed from the state's per-slot hashes
//!   ([`Walk::classify`]), so that a child mixes only the words it changes.
//!
//! The two keyed ways walk the same origins, ships and targets, and their
//! loops look alike, but they stay two: the last steps test each ship and
//! target against [`EarlierSteps`] and settle leaves as they are keyed,
//! the earlier steps make mid-turn children. One loop for both would carry
//! that difference into its innermost step, which runs for every leaf of
//! a big listing, so each keeps its own loop.
//!
//! Each child is then a leaf (nothing but the end of the turn can follow:
//! its result key is looked up before a copy is paid for), a mid-turn
//! state (entered unless the memo of states has it), or pruned (a
//! forbidden self-elimination). A child's memo slot and a leaf's result
//! slot are prefetched when the child is classified, so that the lookups
//! of a state's children overlap instead of waiting one by one.
//!
//! # Counting without positions
//! [`TurnEnumerator::count`] wants the number of results only. After setup
//! whether a turn may end depends only on the homes (`Position::end_turn`:
//! self-elimination, and the CLI's fatal overpopulation), so a leaf that
//! leaves both homes as they are ends as its state does, and one that
//! rewrites a home but leaves both players a live one ends
//! ([`leaf_ends`]): such a leaf is counted from its key alone, its position
//! never built. A key then only ever goes in the set of its verdict (ended
//! or refused), with one insert. The leaves keyed from the slot words are
//! settled through a small ring ([`Settling`]): each result slot is
//! prefetched when keyed and looked up [`SETTLING`] leaves later, when it
//! has arrived. In setup the turn state matters too (a setup pass ends
//! where an empty turn may not), so setup is always walked the long way.
//!
//! # Stopping and resuming
//! A deadline (checked every 1,024 expanded states) or the visitor can stop
//! a walk. The states on its path are in the memo but not finished; they
//! are kept as `unfinished`, so that a resumed walk enters them again and
//! lists only what the stopped one had not.

use super::*;

/// The state of one depth-first enumeration.
pub(super) struct Walk<'a> {
    pub(super) rules: &'a Rules,
    /// Only these actions, in a focused pass.
    pub(super) focus: Option<Focus>,
    /// When to give up, checked every 1,024 expanded states.
    pub(super) deadline: Option<Instant>,
    pub(super) expanded: u64,
    /// Set when the listing ends early, by the deadline or the visitor.
    pub(super) stopped: bool,
    /// Set when the deadline ended the listing.
    pub(super) out_of_time: bool,
    pub(super) states: &'a mut HashSet64,
    pub(super) results: &'a mut HashSet64,
    pub(super) rejected: &'a mut HashSet64,
    pub(super) actions: &'a mut Vec<Action>,
    pub(super) children: &'a mut Vec<Child>,
    /// See [`TurnEnumerator`]'s field.
    pub(super) unfinished: &'a mut Vec<u64>,
    /// See [`TurnEnumerator`]'s field.
    pub(super) arrivals: &'a mut ArrivalCache,
    /// See [`TurnEnumerator`]'s field.
    pub(super) list_repeats: bool,
    /// Whether only the number of results is wanted ([`TurnEnumerator::count`]):
    /// then a leaf whose turn is known to end or not ([`leaf_ends`]) is
    /// counted without its position being built, and a last step keyed
    /// from the slot words is not even queued ([`Walk::settle`]).
    pub(super) counting: bool,
    pub(super) path: Vec<Action>,
    /// See [`Settling`].
    pub(super) settling: Settling,
}

/// Whether the turn of a leaf of `position` (after setup) with `patch` may
/// end, where that is known without building its position: as the state
/// does (`ends`) where both homes stay as they are, and yes where a home
/// is rewritten but both players keep a live one
/// ([`Position::both_alive_after`]); none otherwise.
#[inline]
pub(super) fn leaf_ends(position: &Position, patch: &Patch, ends: bool) -> Option<bool> {
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
pub(super) const SETTLING: usize = 8;

/// The last leaves of a counting walk, keyed and with whether their turns
/// may end, waiting for their result slots to load (see
/// [`HashSet64::prefetch`]).
#[derive(Default)]
pub(super) struct Settling {
    pub(super) leaves: [(u64, bool); SETTLING],
    /// Leaves queued since the last [`Walk::settle_all`].
    pub(super) queued: usize,
}

impl Walk<'_> {
    /// Whether the actions at a system identical to an earlier one are left
    /// out ([`Position::for_each_distinct_action`]): their states and
    /// results repeat those of the earlier system's, listed first. Not in a
    /// focused pass, whose focus is by the slots as they stood at the
    /// turn's start, so that it may take an action at one twin and not the
    /// same action at the other.
    #[inline]
    pub(super) fn skips_twins(&self) -> bool {
        self.focus.is_none() && !self.list_repeats
    }

    /// Counts the leaf `key` of a counting walk (see [`Settling`]) once its
    /// slot has had time to load: the leaf queued [`SETTLING`] leaves
    /// before is looked up now.
    #[inline(always)]
    pub(super) fn settle(&mut self, key: u64, ends: bool) {
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
    pub(super) fn settle_all(&mut self) {
        let queued = self.settling.queued;
        for number in queued.saturating_sub(SETTLING)..queued {
            let (key, ends) = self.settling.leaves[number % SETTLING];
            self.count_result(key, ends);
        }
        self.settling.queued = 0;
    }

    /// Whether the result with this key is already listed or refused.
    #[inline]
    pub(super) fn known(&self, key: u64) -> bool {
        self.results.contains(key) || (!self.rejected.is_empty() && self.rejected.contains(key))
    }

    /// Records a result of a counting walk as listed, or as refused where
    /// the turn may not end there, unless it is already. Why no lookup in
    /// the other set first ([`Walk::known`]): after setup whether a turn
    /// may end depends only on its result, so a key is only ever in the
    /// set of its verdict, and one insert both looks it up and adds it.
    #[inline]
    pub(super) fn count_result(&mut self, key: u64, ends: bool) {
        if ends {
            self.results.insert(key);
        } else {
            self.rejected.insert(key);
        }
    }

    pub(super) fn record(
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
    pub(super) fn record_new(
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
    pub(super) fn take_unfinished(&mut self, key: u64) -> bool {
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
    pub(super) fn explore(
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
        self.list_children(position, &here, last_step, ends, first);
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
                    if self.enter(position, &here, index, patch, key, visit) {
                        break;
                    }
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

    /// Lists the children of `position` from `first` on, by the fastest way
    /// that applies: the last yellow steps keyed from the slot words, the
    /// earlier yellow steps keyed the same way, or the general generator
    /// and [`Walk::classify`]. Split out of [`Walk::explore`] and forced
    /// inline into it, so that the walk compiles as one function.
    #[inline(always)]
    fn list_children(
        &mut self,
        position: &Position,
        here: &Here,
        last_step: Option<LastStep>,
        ends: Option<bool>,
        first: usize,
    ) {
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
            Some(steps) => self.list_last_steps(position, here, &steps, last_step, ends),
            None => match inner() {
                Some(steps) => self.list_yellow_steps(position, here, &steps, last_step),
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
                    self.classify(position, here, last_step, first);
                }
            },
        }
    }

    /// Enters the mid-turn child `index` of `position` (its patch and key
    /// given) unless the memo has it, and explores it. Returns whether the
    /// walk stops here, out of time. Split out of [`Walk::explore`] and
    /// forced inline into it, so that the walk compiles as one function.
    #[inline(always)]
    fn enter(
        &mut self,
        position: &Position,
        here: &Here,
        index: usize,
        patch: Patch,
        key: u64,
        visit: &mut impl FnMut(&[Action], &Position, Outcome) -> bool,
    ) -> bool {
        if !self.states.insert(key) && (self.unfinished.is_empty() || !self.take_unfinished(key)) {
            return false;
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
            return true;
        }
        let action = self.actions[index];
        let last_step = match (action, patch.writes()) {
            (Action::Move { from, .. } | Action::Discover { from, .. }, &[_, (to, _)]) => {
                Some(LastStep {
                    action,
                    to,
                    from_word: position.slot_word(from),
                    to_word: position.slot_word(to),
                })
            }
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
        false
    }

    /// Works out what each of the actions from `first` on (children of
    /// `position`) leads to, and starts loading the result slots of the
    /// leaves.
    pub(super) fn classify(
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
    pub(super) fn list_last_steps(
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
    pub(super) fn list_yellow_steps(
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
    pub(super) fn yellow_child(
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
    pub(super) fn last_step(
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
    pub(super) fn child(
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
}
