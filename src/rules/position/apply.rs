//! Checking and applying actions, and the patches that apply them.
//!
//! An action changes at most two slots (a move or a discovery its origin
//! and destination, every other action one) and the turn bits.
//! [`Position::patch`] works that change out as a [`Patch`], the new words
//! of those slots and the new turn bits, without touching the position.
//! From the patch alone an enumerator learns what it needs before it pays
//! for a copy of the child: its hash ([`Position::patched_hash_with`], from
//! the parent's per-slot hashes, so a child mixes only its new words), the
//! key of the turn ended there ([`Patch::hash_after_end`]), whether it
//! overpopulates a system ([`Patch::overpopulates`]: where no system was
//! overpopulated, only a rewritten one can be, so the sweep of all 18 slots
//! is not needed), and whether it removes a home. Only a child that is new
//! is built, with its hash already known
//! ([`Position::apply_patch_hashed`]).
//!
//! [`Position::apply_unchecked`] applies an action's patch;
//! [`Position::try_apply`] checks it first ([`Position::check`], the rules
//! of [`legality`], which the multi-player position shares), for the
//! protocol, the replays and the tests.

use super::*;
use crate::rules::legality::InPlay;

/// The change one action makes: new words for at most two slots and new
/// turn bits. See [`Position::patch`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Patch {
    pub(super) writes: [(Slot, u64); 2],
    pub(super) len: usize,
    pub(super) meta: u16,
}

impl Patch {
    fn push(&mut self, slot: Slot, word: u64) {
        self.writes[self.len] = (slot, word);
        self.len += 1;
    }

    /// The slots rewritten and their new packed words.
    pub fn writes(&self) -> &[(Slot, u64)] {
        &self.writes[..self.len]
    }

    /// The turn state after the action.
    pub fn turn_state(&self) -> TurnState {
        TurnState::decode(self.meta >> META_TURN_SHIFT)
    }

    /// Whether the action removes `player`'s homeworld. A removed home never
    /// comes back (rules.md R9.4), so its owner can no longer be alive at the
    /// end of the turn.
    pub fn destroys_home(&self, player: Player) -> bool {
        self.writes()
            .iter()
            .any(|&(slot, word)| slot as usize == player.index() && word >> 48 == 0)
    }

    /// The overpopulated colours of the last system the action rewrites:
    /// where a build, a trade or a move adds its piece, so the only place
    /// such an action can overpopulate.
    #[inline]
    pub fn last_write_overpopulated(&self) -> u8 {
        match self.writes().last() {
            Some(&(_, word)) => word_pieces(word).overpopulated_colours(),
            None => 0,
        }
    }

    /// Whether a system the patch rewrites holds four or more pieces of one
    /// colour. Why: where none did before, only those can, so an
    /// enumerator learns a child's [`Position::has_overpopulation`] from
    /// its patch.
    #[inline]
    pub fn overpopulates(&self) -> bool {
        self.writes()
            .iter()
            .any(|&(_, word)| word_pieces(word).overpopulated_colours() != 0)
    }

    /// The hash after this patch alone, given [`Patch::hash_after_end`]'s
    /// answer: the inverse of that, for an enumerator that keyed a leaf on
    /// its result and now applies it.
    pub fn hash_before_end(&self, ended_hash: u64) -> u64 {
        let ended = (self.meta ^ META_SIDE) & ((1 << META_TURN_SHIFT) - 1);
        ended_hash
            .wrapping_sub(META_KEYS[ended as usize])
            .wrapping_add(META_KEYS[self.meta as usize])
    }

    /// The hash after this patch and then the end of the turn, given the
    /// hash after the patch: what a whole-turn enumerator keys results on.
    pub fn hash_after_end(&self, patched_hash: u64) -> u64 {
        let ended = (self.meta ^ META_SIDE) & ((1 << META_TURN_SHIFT) - 1);
        patched_hash
            .wrapping_sub(META_KEYS[self.meta as usize])
            .wrapping_add(META_KEYS[ended as usize])
    }
}

impl Position {
    // ----- applying actions -------------------------------------------------

    /// Applies one action after checking it fully against the rules.
    ///
    /// # Errors
    /// Returns why the action is illegal; the position is then unchanged.
    pub fn try_apply(&mut self, rules: &Rules, action: Action) -> Result<(), IllegalReason> {
        self.check(rules, action)?;
        self.apply_unchecked(rules, action);
        Ok(())
    }

    /// Checks an action without applying it.
    ///
    /// # Errors
    /// Returns why the action is illegal.
    pub fn check(&self, rules: &Rules, action: Action) -> Result<(), IllegalReason> {
        let mover = self.side_to_move();
        if let Action::Homeworld {
            star,
            second_star,
            ship,
        } = action
        {
            if !self.in_setup() || self.home_created(mover) {
                return Err(IllegalReason::HomeworldOutsideSetup);
            }
            if self.turn_state() != TurnState::Start {
                return Err(IllegalReason::TurnCoreUsed);
            }
            return legality::check_homeworld(rules, star, second_star, ship, self.bank());
        }
        if self.in_setup() {
            return self.check_setup_pass(rules, action);
        }
        legality::check_in_play(
            &TwoPlayerView {
                position: self,
                mover,
            },
            rules,
            self.turn_state(),
            action,
        )
    }

    /// Checks a setup turn's step that is not a creation: only a pass, and
    /// only as [`Rules::setup_pass`] allows it.
    fn check_setup_pass(&self, rules: &Rules, action: Action) -> Result<(), IllegalReason> {
        if action != Action::Pass || !rules.setup_pass {
            return Err(IllegalReason::SetupNeedsHomeworld);
        }
        if Player::BOTH.iter().any(|&player| self.home_created(player)) {
            return Err(IllegalReason::SetupPassAfterHomeworld);
        }
        if self.turn_state() != TurnState::Start {
            return Err(IllegalReason::TurnCoreUsed);
        }
        Ok(())
    }

    /// Whether the turn in progress is a setup pass (see [`Rules::setup_pass`]):
    /// nobody has created a homeworld and the pass has been played.
    pub(super) fn is_setup_pass(&self, rules: &Rules) -> bool {
        rules.setup_pass
            && self.turn_state() == TurnState::Done
            && !Player::BOTH.iter().any(|&player| self.home_created(player))
    }

    /// Applies an action the caller knows to be legal (from the generator, or
    /// checked with [`Position::check`]). An illegal action leaves the position
    /// in an unspecified but memory-safe state.
    pub fn apply_unchecked(&mut self, rules: &Rules, action: Action) {
        let patch = self.patch(rules, action);
        self.apply_patch(&patch);
    }

    /// What an action would change, without changing anything: every action
    /// rewrites at most two slots plus the turn bits. Enumerators use it to
    /// learn a child's hash ([`Position::patched_hash`]) before paying for a
    /// copy. The action must be legal, as for [`Position::apply_unchecked`].
    pub fn patch(&self, rules: &Rules, action: Action) -> Patch {
        let me = self.side_to_move().index();
        let state = self.turn_state();
        let unit = |player: usize, piece: Piece| 1u64 << (2 * piece.index() + 24 * player);
        let mut patch = Patch {
            writes: [(0, 0); 2],
            len: 0,
            meta: self.meta,
        };
        let next_state = match action {
            Action::Homeworld {
                star,
                second_star,
                ship,
            } => {
                let mut system = System::default();
                system.stars.add(star);
                if let Some(second) = second_star {
                    system.stars.add(second);
                }
                system.ships[me].add(ship);
                patch.push(me as Slot, system.word());
                patch.meta |= META_CREATED[me];
                TurnState::Done
            }
            Action::Pass => legality::state_after_pass(state),
            Action::Catastrophe { system, colour } => {
                let word = self.stored_word(system);
                let fields = 0x3F_u64 << (6 * colour.index());
                let mut kept = word & 0xFFFF_FFFF_FFFF & !(fields | fields << 24);
                let mut star_shift = 48;
                for nibble in [(word >> 48) & 0xF, (word >> 52) & 0xF] {
                    if nibble != 0 && (nibble - 1) / 3 != colour.index() as u64 {
                        kept |= nibble << star_shift;
                        star_shift += 4;
                    }
                }
                patch.push(system, settled(rules, system, kept));
                legality::state_after_catastrophe(rules, state)
            }
            Action::Sacrifice { system, ship } => {
                let word = self.stored_word(system) - unit(me, ship);
                patch.push(system, settled(rules, system, word));
                TurnState::Sacrifice {
                    colour: ship.colour(),
                    remaining: ship.size(),
                }
            }
            Action::Build { system, piece } => {
                patch.push(system, self.stored_word(system) + unit(me, piece));
                legality::state_after_colour_action(state)
            }
            Action::Trade { system, from, to } => {
                patch.push(
                    system,
                    self.stored_word(system) - unit(me, from) + unit(me, to),
                );
                legality::state_after_colour_action(state)
            }
            Action::Capture { system, ship } => {
                let word = self.stored_word(system) - unit(1 - me, ship) + unit(me, ship);
                patch.push(system, word);
                legality::state_after_colour_action(state)
            }
            Action::Move { from, to, ship } => {
                let origin = self.stored_word(from) - unit(me, ship);
                patch.push(from, settled(rules, from, origin));
                patch.push(to, self.stored_word(to) + unit(me, ship));
                legality::state_after_colour_action(state)
            }
            Action::Discover { from, ship, star } => {
                // The star is taken before the ship leaves (rules.md §6.3), so
                // the new slot is chosen before the origin can fade.
                if let Some(slot) = self.free_slot() {
                    let origin = self.stored_word(from) - unit(me, ship);
                    patch.push(from, settled(rules, from, origin));
                    patch.push(slot, unit(me, ship) | (star.index() as u64 + 1) << 48);
                }
                legality::state_after_colour_action(state)
            }
        };
        let next_state = legality::settle_state(next_state);
        patch.meta =
            patch.meta & ((1 << META_TURN_SHIFT) - 1) | next_state.encode() << META_TURN_SHIFT;
        patch
    }

    /// Every slot's contribution to the hash, for enumerators that hash many
    /// children of one state with [`Position::patched_hash_with`]: each
    /// child then mixes only its new words, not the old ones again.
    pub fn slot_hashes(&self) -> [u64; SLOT_COUNT] {
        let mut hashes = [0; SLOT_COUNT];
        for (slot, hash) in hashes.iter_mut().enumerate().take(HOME_SLOTS) {
            *hash = word_hash(slot as Slot, self.stored_word(slot as Slot));
        }
        // An empty non-home slot adds nothing: only the occupied ones (a
        // non-zero star nibble each) are read and mixed.
        let mut nibbles = self.other_stars | self.other_stars >> 1;
        nibbles |= nibbles >> 2;
        let mut occupied = nibbles & 0x1111_1111_1111_1111;
        while occupied != 0 {
            let slot = HOME_SLOTS + occupied.trailing_zeros() as usize / 4;
            occupied &= occupied - 1;
            hashes[slot] = word_hash(slot as Slot, self.stored_word(slot as Slot));
        }
        debug_assert!((0..SLOT_COUNT).all(|slot| {
            hashes[slot] == word_hash(slot as Slot, self.stored_word(slot as Slot))
        }));
        hashes
    }

    /// [`Position::patched_hash`] given this position's
    /// [`Position::slot_hashes`]; the same value, with half the mixing.
    #[inline]
    pub fn patched_hash_with(&self, patch: &Patch, slot_hashes: &[u64; SLOT_COUNT]) -> u64 {
        self.patched_hash_by(patch, |slot| slot_hashes[slot as usize])
    }

    /// The hash the position would have after `patch`.
    pub fn patched_hash(&self, patch: &Patch) -> u64 {
        self.patched_hash_by(patch, |slot| word_hash(slot, self.stored_word(slot)))
    }

    /// The hash after `patch`, given each rewritten slot's present share of
    /// the hash (`old`). Forced inline: [`Position::patched_hash_with`] is
    /// on the enumerator's path for every child.
    #[inline(always)]
    fn patched_hash_by(&self, patch: &Patch, old: impl Fn(Slot) -> u64) -> u64 {
        let mut hash = self
            .hash
            .wrapping_sub(META_KEYS[self.meta as usize])
            .wrapping_add(META_KEYS[patch.meta as usize]);
        for &(slot, word) in patch.writes() {
            hash = hash
                .wrapping_sub(old(slot))
                .wrapping_add(word_hash(slot, word));
        }
        hash
    }

    /// Applies a patch made by [`Position::patch`] on this position.
    pub fn apply_patch(&mut self, patch: &Patch) {
        for &(slot, word) in patch.writes() {
            self.write_word(slot, word);
        }
        self.set_meta(patch.meta);
    }

    /// [`Position::apply_patch`] given the hash it leads to (from
    /// [`Position::patched_hash_with`]): an enumerator that has already
    /// hashed a child to look it up need not mix its words again.
    pub(crate) fn apply_patch_hashed(&mut self, patch: &Patch, patched_hash: u64) {
        for &(slot, word) in patch.writes() {
            self.store_word(slot, word);
        }
        self.meta = patch.meta;
        self.hash = patched_hash;
        debug_assert_eq!(
            self.hash,
            self.compute_hash(),
            "a patched hash is the position's"
        );
    }
}

/// The two-player position as [`legality::check_in_play`] reads it, for
/// `mover`.
struct TwoPlayerView<'a> {
    position: &'a Position,
    mover: Player,
}

impl InPlay for TwoPlayerView<'_> {
    type System = System;
    type Fleet = PieceSet;
    type Bank = PieceSet;

    #[inline]
    fn system(&self, slot: Slot) -> Option<System> {
        if slot as usize >= SLOT_COUNT {
            return None;
        }
        Some(self.position.system(slot)).filter(|system| system.exists())
    }

    #[inline]
    fn own(&self, system: &System) -> PieceSet {
        system.ships[self.mover.index()]
    }

    #[inline]
    fn enemy(&self, system: &System) -> PieceSet {
        system.ships[1 - self.mover.index()]
    }

    #[inline]
    fn is_overpopulated(&self, system: &System, colour: Colour) -> bool {
        system.is_overpopulated(colour)
    }

    #[inline]
    fn access(&self, system: &System) -> u8 {
        system.access(self.mover)
    }

    #[inline]
    fn star_sizes(&self, system: &System) -> u8 {
        system.size_mask()
    }

    #[inline]
    fn bank(&self) -> PieceSet {
        self.position.bank()
    }

    #[inline]
    fn has_free_slot(&self) -> bool {
        self.position.free_slot().is_some()
    }
}
