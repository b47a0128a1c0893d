//! The yellow steps keyed from the slot words, and their caches.
//!
//! In a yellow sacrifice most of a listing is its last step, and most of
//! those steps repeat a result already listed, so an enumerator that only
//! needs a step's key to tell should not pay for the general
//! [`Position::patch`] and a hash of the whole child per step. A move or a
//! discovery changes two slot words, the origin's and the destination's,
//! and a position's hash is a sum of per-slot hashes
//! ([`Position::slot_hashes`]), so a step's key is the state's hash with
//! the turn ended ([`LastYellowSteps`]'s base), plus what the ship's
//! leaving changes ([`LastYellowSteps::leaving`], once a ship: it does not
//! depend on where the ship goes), plus what its arrival changes. The
//! arrival's share does not depend on the origin either, and a state's
//! steps bring the same ship types to the same systems from several
//! origins, so it is worked out once a state for each destination and ship
//! type ([`ArrivalCache`]). A discovered system is one ship and one star in
//! a non-home slot, whose hash does not depend on the slot, so its share is
//! a table made at compile time (`DISCOVERY_HASHES`). A step's patch
//! writes the same two words its key came from.
//!
//! The same keying serves the earlier steps of a sacrifice with two or
//! more actions left ([`Position::inner_yellow_steps`]): the mid-turn hash
//! instead of the ended one. A step whose arrival overpopulates a system,
//! or that would remove the mover's home where that is refused, is left to
//! the general path, which handles every rule.
//!
//! The per-step helpers are forced inline (`#[inline(always)]`): with two
//! callers the compiler would otherwise move them out of line, and they
//! run once for each of the tens of thousands of leaves of a big listing.
//! Debug builds check every key and patch against [`Position::patch`].

use super::*;

/// The result keys and patches of a turn's last yellow steps, worked out
/// from the slot words alone. Why: in a yellow sacrifice most of a listing
/// is its last step, and most of those steps repeat a result already
/// listed, so an enumerator that needs only the key to tell (see
/// `TurnEnumerator`) should not pay for the general [`Position::patch`]
/// per step. Made by [`Position::last_yellow_steps`]; a step's key is the
/// sum of what its ship's leaving adds ([`LastYellowSteps::leaving`], once
/// per ship) and what its arrival adds, and its patch writes the same two
/// words.
pub(crate) struct LastYellowSteps {
    /// The mover's index, for the piece units of the fleet fields.
    me: usize,
    /// The position's hash with the turn already ended: the meta key after
    /// the step and the end of the turn in place of the current one.
    base: u64,
    slot_hashes: [u64; SLOT_COUNT],
    /// Where a discovery puts its new system.
    free_slot: Option<Slot>,
    /// Whether a step that removes the mover's home is left to the general
    /// path, which refuses it (a forbidden self-elimination).
    guard_home: bool,
    /// The meta word after a step, before the end of the turn: what every
    /// step's patch carries.
    stepped: u16,
}

/// A ship of one type leaving one slot in a last yellow step
/// ([`LastYellowSteps::leaving`]), shared by all the steps it takes.
#[derive(Clone, Copy)]
pub(crate) struct Leaving {
    from: Slot,
    /// The origin's word after the ship left (zero if the system faded).
    word: u64,
    /// What the leaving adds to the result key.
    key: u64,
}

/// What a ship's arrival adds to the key of a last yellow step, and the
/// destination's word after it ([`LastYellowSteps::move_step`]), by
/// destination slot and ship type, worked out at the first step of a
/// state that needs it: it does not
/// depend on the origin, and a state's steps bring the same ship types to
/// the same systems from several origins. An enumerator keeps one and
/// clears it for each state (the bits only: `arrivals` is read only where
/// `arrived` has the bit), so that nothing is zeroed or copied a state.
pub(crate) struct ArrivalCache {
    arrivals: [[u64; Piece::COUNT]; SLOT_COUNT],
    /// The destination's word after the arrival, beside `arrivals`.
    words: [[u64; Piece::COUNT]; SLOT_COUNT],
    /// By slot, a bit for each ship type whose arrival is in `arrivals`
    /// or in `crowded`.
    arrived: [u16; SLOT_COUNT],
    /// By slot, a bit for each ship type whose arrival overpopulates.
    crowded: [u16; SLOT_COUNT],
}

impl Default for ArrivalCache {
    fn default() -> ArrivalCache {
        ArrivalCache {
            arrivals: [[0; Piece::COUNT]; SLOT_COUNT],
            words: [[0; Piece::COUNT]; SLOT_COUNT],
            arrived: [0; SLOT_COUNT],
            crowded: [0; SLOT_COUNT],
        }
    }
}

impl ArrivalCache {
    /// Forgets the arrivals of the state before.
    pub(crate) fn clear(&mut self) {
        self.arrived = [0; SLOT_COUNT];
        self.crowded = [0; SLOT_COUNT];
    }
}

impl LastYellowSteps {
    /// One ship of type `ship` of the mover, in a slot word's fleet fields.
    #[inline]
    fn unit(&self, ship: Piece) -> u64 {
        1u64 << (2 * ship.index() + 24 * self.me)
    }

    /// A ship of type `ship` leaving `from`, for every step it takes;
    /// `None` when that step removes the mover's home while `guard_home`
    /// (the general path refuses it).
    #[inline(always)]
    pub(crate) fn leaving(
        &self,
        position: &Position,
        rules: &Rules,
        from: Slot,
        ship: Piece,
    ) -> Option<Leaving> {
        let word = settled(rules, from, position.stored_word(from) - self.unit(ship));
        if self.guard_home && from as usize == self.me && word >> 48 == 0 {
            return None;
        }
        Some(Leaving {
            from,
            word,
            key: self
                .base
                .wrapping_sub(self.slot_hashes[from as usize])
                .wrapping_add(word_hash(from, word)),
        })
    }

    /// The key of the result of moving the ship that is `leaving` to `to`
    /// (the hash after the move and the end of the turn, what
    /// [`Patch::hash_after_end`] gives), with the move's patch, the one
    /// [`Position::patch`] makes. `None` when the arrival overpopulates
    /// `to`, since a catastrophe may then follow.
    #[inline(always)]
    pub(crate) fn move_step(
        &self,
        cache: &mut ArrivalCache,
        position: &Position,
        leaving: Leaving,
        to: Slot,
        ship: Piece,
    ) -> Option<(u64, Patch)> {
        let (slot, bit) = (to as usize, 1u16 << ship.index());
        if cache.arrived[slot] & bit == 0 {
            cache.arrived[slot] |= bit;
            let arrival = position.stored_word(to) + self.unit(ship);
            if word_pieces(arrival).overpopulated_colours() != 0 {
                cache.crowded[slot] |= bit;
            } else {
                cache.arrivals[slot][ship.index()] =
                    word_hash(to, arrival).wrapping_sub(self.slot_hashes[slot]);
                cache.words[slot][ship.index()] = arrival;
            }
        }
        if cache.crowded[slot] & bit != 0 {
            return None;
        }
        Some((
            leaving.key.wrapping_add(cache.arrivals[slot][ship.index()]),
            self.patch(leaving, to, cache.words[slot][ship.index()]),
        ))
    }

    /// The key and patch of the ship that is `leaving` discovering `star`,
    /// as [`LastYellowSteps::move_step`]; `None` without a free slot.
    #[inline(always)]
    pub(crate) fn discovery_step(
        &self,
        leaving: Leaving,
        ship: Piece,
        star: Piece,
    ) -> Option<(u64, Patch)> {
        let slot = self.free_slot?;
        let word = self.unit(ship) | (star.index() as u64 + 1) << 48;
        debug_assert_eq!(
            DISCOVERY_HASHES[self.me][ship.index()][star.index()],
            word_hash(slot, word)
        );
        // A new system holds two pieces: never overpopulated. A free slot
        // adds nothing to the hash.
        Some((
            leaving
                .key
                .wrapping_add(DISCOVERY_HASHES[self.me][ship.index()][star.index()]),
            self.patch(leaving, slot, word),
        ))
    }

    /// A step's patch: the origin's word and the destination's, in that
    /// order, as [`Position::patch`] writes them.
    #[inline]
    fn patch(&self, leaving: Leaving, to: Slot, word: u64) -> Patch {
        Patch {
            writes: [(leaving.from, leaving.word), (to, word)],
            len: 2,
            meta: self.stepped,
        }
    }
}

impl Position {
    /// The keys of this state's last yellow steps ([`LastYellowSteps`]),
    /// when it is the last action of a yellow sacrifice with no system
    /// overpopulated, so that every move or discovery ends the turn (unless
    /// its arrival overpopulates). `guard_home`: whether removing the
    /// mover's home is refused. The caller gives what it has already worked
    /// out for this state: whether a system is overpopulated
    /// ([`Position::has_overpopulation`]) and its
    /// [`Position::slot_hashes`].
    pub(crate) fn last_yellow_steps(
        &self,
        overpopulated: bool,
        slot_hashes: &[u64; SLOT_COUNT],
        guard_home: bool,
    ) -> Option<LastYellowSteps> {
        debug_assert_eq!(overpopulated, self.has_overpopulation());
        let last = TurnState::Sacrifice {
            colour: Colour::Yellow,
            remaining: 1,
        };
        if self.turn_state() != last || overpopulated {
            return None;
        }
        let stepped =
            self.meta & ((1 << META_TURN_SHIFT) - 1) | TurnState::Done.encode() << META_TURN_SHIFT;
        let ended = (stepped ^ META_SIDE) & ((1 << META_TURN_SHIFT) - 1);
        Some(self.yellow_steps(slot_hashes, guard_home, stepped, ended))
    }

    /// The steps of [`Position::last_yellow_steps`] or
    /// [`Position::inner_yellow_steps`]: `stepped` is the meta word after a
    /// step, `keyed` the one its key is the hash with.
    fn yellow_steps(
        &self,
        slot_hashes: &[u64; SLOT_COUNT],
        guard_home: bool,
        stepped: u16,
        keyed: u16,
    ) -> LastYellowSteps {
        LastYellowSteps {
            me: self.side_to_move().index(),
            base: self
                .hash
                .wrapping_sub(META_KEYS[self.meta as usize])
                .wrapping_add(META_KEYS[keyed as usize]),
            slot_hashes: *slot_hashes,
            free_slot: self.free_slot(),
            guard_home,
            stepped,
        }
    }

    /// [`Position::last_yellow_steps`] for a yellow sacrifice with more
    /// than one step left, no system overpopulated: each step's key is then
    /// the hash of the mid-turn state it leads to (the turn not ended), and
    /// its patch the one [`Position::patch`] makes. Why: the states with
    /// two steps left list their children's keys from the slot words too,
    /// instead of a general patch and two mixes a child.
    pub(crate) fn inner_yellow_steps(
        &self,
        overpopulated: bool,
        slot_hashes: &[u64; SLOT_COUNT],
        guard_home: bool,
    ) -> Option<LastYellowSteps> {
        debug_assert_eq!(overpopulated, self.has_overpopulation());
        let state = self.turn_state();
        let more = matches!(
            state,
            TurnState::Sacrifice {
                colour: Colour::Yellow,
                remaining: 2..,
            }
        );
        if !more || overpopulated {
            return None;
        }
        let next = legality::settle_state(legality::state_after_colour_action(state));
        let stepped = self.meta & ((1 << META_TURN_SHIFT) - 1) | next.encode() << META_TURN_SHIFT;
        Some(self.yellow_steps(slot_hashes, guard_home, stepped, stepped))
    }
}
