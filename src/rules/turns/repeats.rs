//! The rules that leave out last steps which can only repeat a result
//! already listed, without looking at them.
//!
//! Most of a big listing is the last step of a yellow sacrifice, and most
//! of those steps land on a result already listed: three independent moves
//! reach one result from three different two-move states. Two rules prove
//! a step a repeat from what the state was reached by ([`LastStep`], the
//! yellow step from the parent) and the generator's order:
//! - [`EarlierSteps`], for the last yellow steps keyed from the slot
//!   words: a ship at a time, the steps of the ships the parent lists
//!   first, and the moved ship's own steps that undo the step before. The
//!   checks are made once a ship and once a destination, not once a step,
//!   and they cover steps that empty their origin or discover a system,
//!   which are most of a big listing.
//! - [`Walk::skip`], for the other last steps: a step that commutes with
//!   the step before and that the parent lists first.
//!
//! Both may leave out only results listed *before*: a rule that left out
//! a result listed only later would keep every count (which perft checks)
//! and change the order of the turns. The listing tests
//! (`covered_last_steps_change_no_turn_and_no_order` and the crowded-map
//! one) compare every listing with and without the rules
//! (`TurnEnumerator::list_repeats`), turn for turn, and with every result
//! found the plain way.
//!
//! A focused pass ([`TurnOrder::AttackFirst`]'s first walk) does without
//! [`EarlierSteps`]: there the memo holds a state in the form first
//! reached, and the focus, being by slot, may take a step in one form of a
//! state and leave it out in another (two systems with the same star
//! swapping their ships).

use super::*;

/// The yellow step (a move or a discovery) that reached the state being
/// expanded, with what its systems held before it, for [`Walk::skip`].
#[derive(Clone, Copy)]
pub(super) struct LastStep {
    pub(super) action: Action,
    /// The slot the ship went to (the new system's, for a discovery).
    pub(super) to: Slot,
    /// The words of the origin and of `to` before the step.
    pub(super) from_word: u64,
    pub(super) to_word: u64,
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
pub(super) struct EarlierSteps {
    /// o and X's type.
    pub(super) origin: Slot,
    pub(super) ship: usize,
    /// d, the system `before` went to.
    pub(super) destination: Slot,
    /// The star `before` discovered, if it was a discovery.
    pub(super) discovered: Option<Piece>,
    /// The star sizes of o (bit `s` for size `s`), for the systems
    /// connected to it.
    pub(super) origin_sizes: u8,
    /// The star nibbles of o when `before` emptied it (its stars went back
    /// to the bank), else zero.
    pub(super) returned_stars: u64,
    /// Whether P had a free slot for another ship's discovery, and
    /// another for `before` after it where `before` is a discovery.
    pub(super) free_slot: bool,
}

/// Which ship [`EarlierSteps`] may cover.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Covered {
    /// A ship listed before X in P.
    Other,
    /// X again, from d.
    Same,
}

impl EarlierSteps {
    /// The rule for `position`, reached first by `before`; none when
    /// `before` is not a yellow step.
    pub(super) fn of(position: &Position, before: LastStep) -> Option<EarlierSteps> {
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
    pub(super) fn covers_ship(&self, from: Slot, ship: Piece) -> Option<Covered> {
        if from == self.destination {
            (ship.index() == self.ship).then_some(Covered::Same)
        } else {
            (from < self.origin || (from == self.origin && ship.index() < self.ship))
                .then_some(Covered::Other)
        }
    }

    /// Whether a covered ship's move to `to` in `position` is covered.
    #[inline]
    pub(super) fn covers_move(&self, covered: Covered, position: &Position, to: Slot) -> bool {
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
    pub(super) fn covers_discovery(&self, covered: Covered, star: Piece) -> bool {
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
pub(super) type ListingOrder = (Slot, usize, usize);

/// Where a yellow step starts, where it goes (the destination slot of a
/// move, or none for a discovery, whose slot is not part of the action) and
/// its place in the generator's order within one state: by origin, ship,
/// then moves by destination before discoveries by star.
pub(super) fn yellow_step(action: Action) -> Option<(Slot, Option<Slot>, ListingOrder)> {
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

impl Walk<'_> {
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
    pub(super) fn skip(
        position: &Position,
        before: LastStep,
        action: Action,
        patch: &Patch,
    ) -> bool {
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
