//! The position: a 128-byte `Copy` value with an incrementally updated hash.
//!
//! # Layout
//! A position has 18 system *slots*. Slot 0 is player 0's homeworld and slot 1
//! is player 1's; slots 2..18 hold the other systems in no particular order.
//! Each slot stores the two fleets as two [`PieceSet`]s (24 bits each, 2 bits
//! per piece type) packed into three `u16`s, and its stars as 4-bit nibbles
//! (0 = no star, otherwise piece index + 1). The bank is never stored: it is
//! 36 pieces minus what is on the map (rules.md R1.2).
//!
//! Why so small: the search copies a position for every path it replays and
//! the enumerator one for every new result, so the whole position fits in
//! two cache lines and copies without a loop. Piece counts fit in 2 bits
//! because a game has three copies of each piece.
//!
//! # Slot words
//! A slot reads as one `u64` word ([`System::word`]): player 0's fleet in
//! bits 0..24, player 1's in 24..48, the star nibbles above, a home's two
//! stars smaller first so that equal systems give equal words. Most of the
//! rules core works on these words rather than on decoded systems: two
//! systems are identical when their words are equal (the generator's
//! identical-system rule, rules.md E3, and the enumerator's twins), the
//! star sizes and the pieces come from a word by table lookups
//! (`word_size_mask`, `word_pieces`), and an action's change is a new
//! word for at most two slots ([`Patch`]).
//!
//! # Capacity
//! Between turns at most 16 non-home systems can exist: each needs a star and
//! a ship, and each living homeworld holds at least a star and a ship (R1.7),
//! so 16 × 2 + 2 × 2 = 36. A 17th could only be discovered mid-turn when both
//! homeworlds are down to a bare star with no ships (or one is gone), that is
//! in a turn whose result is already decided: nobody can give the opponent
//! ships back, and the mover's fleet would have to abandon a system to return
//! home. A discovery that needs a 17th slot is therefore rejected as
//! [`IllegalReason::NoFreeSlot`]; no game result depends on it.
//!
//! # Identity
//! Equality and the hash ignore system names (they live beside the position,
//! in the notation layer), piece copies, and the order of non-home systems:
//! the non-home systems form a multiset. The hash adds a mixed hash of each
//! system's contents (wrapping addition, so identical systems do not cancel
//! as they would with XOR), the two home slots with their own salts, and one
//! mixed key for the side to move, setup progress and the state of the turn.
//!
//! Because the hash is a sum of per-slot terms, it is updated, not
//! recomputed: an action subtracts the old terms of the slots it rewrites
//! and adds the new ones, and the turn bits swap one precomputed key for
//! another (`META_KEYS`, one for each of the 512 values). An enumerator
//! goes further and keys a child from its parent's per-slot hashes and its
//! patch without building it ([`Position::patched_hash_with`]), and keys the last
//! yellow steps from the slot words alone (the `steps` module). The
//! invariant tests check the incremental hash against
//! [`Position::compute_hash`] after every action of random games.

use std::fmt;

use super::legality;
use super::piece::{Colour, Piece, PieceSet, Player};
use super::profile::{Rules, SelfElimination};
use super::turns::{Turn, TurnEnumerator};

mod apply;
mod steps;

pub use super::action::{Action, IllegalReason};
pub use apply::Patch;
pub(crate) use steps::{ArrivalCache, LastYellowSteps};

/// Index of a system slot: 0 and 1 are the homes, 2..18 the other systems.
pub type Slot = u8;

/// Number of system slots in a position.
pub const SLOT_COUNT: usize = 18;
/// Number of home slots (slot `p` is player `p`'s home).
pub const HOME_SLOTS: usize = 2;

/// The contents of one system slot, unpacked for reading and editing.
///
/// Stars are a multiset too, because a homeworld may have two identical stars.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct System {
    /// The stars: none for an empty slot, 1 for a non-home system, 1–2 for a home.
    pub stars: PieceSet,
    /// Ships owned by each player.
    pub ships: [PieceSet; 2],
}

impl System {
    /// Whether a system occupies this slot (every live system has a star).
    pub fn exists(self) -> bool {
        !self.stars.is_empty()
    }

    /// All ships of both players.
    pub fn all_ships(self) -> PieceSet {
        self.ships[0].plus(self.ships[1])
    }

    /// Whether neither player has a ship here.
    pub fn has_no_ships(self) -> bool {
        self.ships[0].is_empty() && self.ships[1].is_empty()
    }

    /// The star sizes as a bit mask (bit `s` for size `s`). Two systems are
    /// connected exactly when their masks are disjoint (rules.md R4.1).
    pub fn size_mask(self) -> u8 {
        self.stars.size_mask()
    }

    /// Pieces of `colour` here, stars and both fleets (rules.md R8.1).
    pub fn colour_count(self, colour: Colour) -> u32 {
        self.stars.colour_count(colour) + self.all_ships().colour_count(colour)
    }

    /// Whether `colour` is overpopulated here (4 or more pieces).
    pub fn is_overpopulated(self, colour: Colour) -> bool {
        self.pieces().overpopulated_colours() & (1 << colour.index()) != 0
    }

    /// Colours `player` may use for a basic action here: star colours plus the
    /// colours of the player's own ships (rules.md R5.1).
    pub fn access(self, player: Player) -> u8 {
        let own = self.stars.plus(self.ships[player.index()]);
        Colour::ALL
            .iter()
            .filter(|&&colour| own.has_colour(colour))
            .fold(0, |mask, &colour| mask | 1 << colour.index())
    }

    /// Every piece in the system.
    pub fn pieces(self) -> PieceSet {
        self.stars.plus(self.all_ships())
    }

    /// The packed form: both fleets in bits 0..48, star nibbles above. Stars
    /// are written smaller-first so that equal systems pack equally.
    #[inline]
    pub fn word(self) -> u64 {
        let stars = self.stars.0;
        let (first, second) = if stars == 0 {
            (0, 0)
        } else {
            let low = stars.trailing_zeros() / 2;
            let rest = stars - (1 << (2 * low));
            let second = if rest == 0 {
                0
            } else {
                rest.trailing_zeros() / 2 + 1
            };
            (low + 1, second)
        };
        self.ships[0].0 as u64
            | (self.ships[1].0 as u64) << 24
            | (first as u64) << 48
            | (second as u64) << 52
    }
}

/// Where the current turn stands (rules.md R10.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TurnState {
    /// Nothing but catastrophes has happened yet this turn.
    Start,
    /// The turn's pass, basic action or last sacrifice action is done:
    /// only catastrophes and the end of the turn remain.
    Done,
    /// Inside a sacrifice: `remaining` (1..=3) actions of `colour` may follow.
    Sacrifice {
        /// The sacrificed ship's colour: the only power available.
        colour: Colour,
        /// Actions still allowed; unused ones may be forfeited.
        remaining: u8,
    },
}

impl TurnState {
    fn encode(self) -> u16 {
        match self {
            TurnState::Start => 0,
            TurnState::Done => 1,
            TurnState::Sacrifice { colour, remaining } => {
                2 | (colour as u16) << 2 | (remaining as u16) << 4
            }
        }
    }

    fn decode(bits: u16) -> TurnState {
        match bits & 3 {
            0 => TurnState::Start,
            1 => TurnState::Done,
            _ => TurnState::Sacrifice {
                colour: Colour::ALL[((bits >> 2) & 3) as usize],
                remaining: ((bits >> 4) & 3) as u8,
            },
        }
    }
}

/// The result of a game, as judged at the end of a turn (rules.md R11.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Both players are alive.
    Ongoing,
    /// This player won: the other has no homeworld or no ship of their own there.
    Win(Player),
    /// Both players were eliminated in the same turn.
    Draw,
}

/// A slot's word after the fade rules (rules.md R9): a system without a star
/// is gone with its ships; a non-home system without ships is gone; a home
/// without ships too under `home_vanishes_when_empty`.
fn settled(rules: &Rules, slot: Slot, word: u64) -> u64 {
    let has_star = word >> 48 != 0;
    let has_ships = word & 0xFFFF_FFFF_FFFF != 0;
    let is_home = (slot as usize) < HOME_SLOTS;
    if legality::fades(rules, is_home, has_star, has_ships) {
        0
    } else {
        word
    }
}

/// The size bit ([`System::size_mask`]) of a star nibble of a packed word
/// (the piece's index plus one; none for zero).
const NIBBLE_SIZES: [u8; 16] = {
    let mut table = [0; 16];
    let mut nibble = 1;
    while nibble <= Piece::COUNT {
        table[nibble] = 1 << ((nibble - 1) % 3 + 1);
        nibble += 1;
    }
    table
};

/// The star sizes of a packed word, as [`System::size_mask`] gives them,
/// without decoding the system.
#[inline]
pub(crate) fn word_size_mask(word: u64) -> u8 {
    NIBBLE_SIZES[(word >> 48 & 0xF) as usize] | NIBBLE_SIZES[(word >> 52 & 0xF) as usize]
}

/// Every piece of a packed word, stars and both fleets, as one set.
#[inline]
pub(crate) fn word_pieces(word: u64) -> PieceSet {
    let mut pieces = (word & 0xFF_FFFF) + ((word >> 24) & 0xFF_FFFF);
    for nibble in [(word >> 48) & 0xF, (word >> 52) & 0xF] {
        if nibble != 0 {
            pieces += 1 << (2 * (nibble - 1));
        }
    }
    PieceSet(pieces as u32)
}

/// Mixes a 64-bit value (the splitmix64 finaliser); used for per-system hashes.
pub(crate) const fn mix(mut value: u64) -> u64 {
    value = (value ^ (value >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    value = (value ^ (value >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    value ^ (value >> 31)
}

/// Whether a home's packed word is alive for `player`: it has a star and
/// one of their ships.
#[inline]
fn home_word_alive(word: u64, player: Player) -> bool {
    word >> 48 != 0 && (word >> (24 * player.index())) & 0xFF_FFFF != 0
}

/// A slot's contribution to the position hash. Empty non-home slots add
/// nothing, so the non-home systems hash as a multiset.
#[inline]
fn word_hash(slot: Slot, word: u64) -> u64 {
    if (slot as usize) < HOME_SLOTS {
        mix(word ^ HOME_SALT[slot as usize])
    } else if word >> 48 != 0 {
        mix(word ^ OTHER_SALT)
    } else {
        0
    }
}

const HOME_SALT: [u64; 2] = [0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344];
const OTHER_SALT: u64 = 0xA409_3822_299F_31D0;

/// The hash of a system just discovered, by player, ship type and star
/// type: one ship and one star in a non-home slot, whose hash does not
/// depend on which slot ([`word_hash`]). Why a table: half the last steps
/// of a big listing are discoveries, each keyed with this.
const DISCOVERY_HASHES: [[[u64; Piece::COUNT]; Piece::COUNT]; 2] = {
    let mut table = [[[0; Piece::COUNT]; Piece::COUNT]; 2];
    let mut player = 0;
    while player < 2 {
        let mut ship = 0;
        while ship < Piece::COUNT {
            let mut star = 0;
            while star < Piece::COUNT {
                let word = 1u64 << (2 * ship + 24 * player) | (star as u64 + 1) << 48;
                table[player][ship][star] = mix(word ^ OTHER_SALT);
                star += 1;
            }
            ship += 1;
        }
        player += 1;
    }
    table
};
const META_SALT: u64 = 0x082E_FA98_EC4E_6C89;

/// Number of distinct `meta` values: 3 bits of flags and 6 of turn state.
const META_VALUES: usize = 1 << 9;

/// The hash key of every `meta` value, computed at compile time, because the
/// turn state changes on every action.
static META_KEYS: [u64; META_VALUES] = {
    let mut keys = [0; META_VALUES];
    let mut index = 0;
    while index < META_VALUES {
        keys[index] = mix(index as u64 ^ META_SALT);
        index += 1;
    }
    keys
};

/// Bits of `Position::meta`.
const META_SIDE: u16 = 1;
const META_CREATED: [u16; 2] = [2, 4];
const META_TURN_SHIFT: u16 = 3;

/// A Binary Homeworlds position: the map, the side to move, setup progress
/// and the state of the turn in progress. See the module docs for the layout
/// and what equality means.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Position {
    hash: u64,
    /// Star nibbles of the non-home slots 2..18.
    other_stars: u64,
    /// Per slot, three `u16`s: player 0's ships (24 bits) then player 1's.
    ships: [u16; 3 * SLOT_COUNT],
    /// Star nibbles of the homes: two per home.
    home_stars: u16,
    /// Side to move, which homes were created, and the turn state.
    meta: u16,
}

impl Default for Position {
    fn default() -> Position {
        Position::start()
    }
}

impl Position {
    /// The empty map before either homeworld exists, player 0 to move.
    pub fn start() -> Position {
        let mut position = Position {
            hash: 0,
            other_stars: 0,
            ships: [0; 3 * SLOT_COUNT],
            home_stars: 0,
            meta: 0,
        };
        position.hash = position.compute_hash();
        position
    }

    /// The incrementally maintained hash. Equal positions have equal hashes.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Whether the two are the same bits: the same pieces in the same slots,
    /// where `==` ignores the order of the slots. A slot number taken from
    /// one means the same system in the other only then.
    pub fn identical(&self, other: &Position) -> bool {
        self.hash == other.hash
            && self.other_stars == other.other_stars
            && self.ships == other.ships
            && self.home_stars == other.home_stars
            && self.meta == other.meta
    }

    /// Recomputes the hash from scratch; tests compare it with [`Position::hash`].
    pub fn compute_hash(&self) -> u64 {
        let mut hash = META_KEYS[self.meta as usize];
        for slot in 0..SLOT_COUNT as Slot {
            hash = hash.wrapping_add(word_hash(slot, self.system(slot).word()));
        }
        hash
    }

    /// The player whose turn it is.
    pub fn side_to_move(&self) -> Player {
        if self.meta & META_SIDE == 0 {
            Player::First
        } else {
            Player::Second
        }
    }

    /// The state of the turn in progress.
    pub fn turn_state(&self) -> TurnState {
        TurnState::decode(self.meta >> META_TURN_SHIFT)
    }

    /// Whether `player` has created a homeworld (it may since have been destroyed).
    pub fn home_created(&self, player: Player) -> bool {
        self.meta & META_CREATED[player.index()] != 0
    }

    /// Whether the game is still in its setup turns.
    pub fn in_setup(&self) -> bool {
        !(self.home_created(Player::First) && self.home_created(Player::Second))
    }

    fn set_meta(&mut self, meta: u16) {
        self.hash = self
            .hash
            .wrapping_sub(META_KEYS[self.meta as usize])
            .wrapping_add(META_KEYS[meta as usize]);
        self.meta = meta;
    }

    fn set_turn_state(&mut self, state: TurnState) {
        let state = match state {
            TurnState::Sacrifice { remaining: 0, .. } => TurnState::Done,
            other => other,
        };
        let meta = self.meta & ((1 << META_TURN_SHIFT) - 1) | state.encode() << META_TURN_SHIFT;
        self.set_meta(meta);
    }

    /// The packed word of a slot straight from storage (see [`System::word`]).
    /// Storage is written from `System::word`, so it is already canonical.
    #[inline]
    fn stored_word(&self, slot: Slot) -> u64 {
        let index = slot as usize;
        let base = 3 * index;
        let ships = self.ships[base] as u64
            | (self.ships[base + 1] as u64) << 16
            | (self.ships[base + 2] as u64) << 32;
        let nibbles = if index < HOME_SLOTS {
            (self.home_stars >> (8 * index)) as u64 & 0xFF
        } else {
            (self.other_stars >> (4 * (index - HOME_SLOTS))) & 0xF
        };
        ships | nibbles << 48
    }

    /// All pieces in a slot as one set, from storage, without decoding a [`System`].
    #[inline]
    fn stored_pieces(&self, slot: Slot) -> PieceSet {
        word_pieces(self.stored_word(slot))
    }

    /// The contents of a slot (an empty [`System`] for an unused slot).
    #[inline]
    pub fn system(&self, slot: Slot) -> System {
        let word = self.stored_word(slot);
        let bits = word & 0xFFFF_FFFF_FFFF;
        let nibbles = word >> 48;
        let mut stars = PieceSet::EMPTY;
        for nibble in [nibbles & 0xF, nibbles >> 4] {
            if nibble != 0 {
                stars.add(Piece::ALL[nibble as usize - 1]);
            }
        }
        System {
            stars,
            ships: [
                PieceSet((bits & 0xFF_FFFF) as u32),
                PieceSet((bits >> 24) as u32),
            ],
        }
    }

    /// Overwrites a slot, keeping the hash up to date. Non-home slots hold at
    /// most one star; the caller guarantees it.
    fn set_system(&mut self, slot: Slot, system: System) {
        self.write_word(slot, system.word());
    }

    /// Stores a canonical packed word (see [`System::word`]) in a slot,
    /// keeping the hash up to date.
    #[inline]
    fn write_word(&mut self, slot: Slot, word: u64) {
        let old = self.stored_word(slot);
        self.hash = self
            .hash
            .wrapping_sub(word_hash(slot, old))
            .wrapping_add(word_hash(slot, word));
        self.store_word(slot, word);
    }

    /// Stores a canonical packed word in a slot without touching the hash:
    /// for callers that set the hash themselves.
    #[inline]
    fn store_word(&mut self, slot: Slot, word: u64) {
        let index = slot as usize;
        let base = 3 * index;
        self.ships[base] = word as u16;
        self.ships[base + 1] = (word >> 16) as u16;
        self.ships[base + 2] = (word >> 32) as u16;
        let nibbles = (word >> 48) & 0xFF;
        if index < HOME_SLOTS {
            let shift = 8 * index;
            self.home_stars = self.home_stars & !(0xFF << shift) | (nibbles as u16) << shift;
        } else {
            debug_assert!(nibbles >> 4 == 0, "a non-home system has one star");
            let shift = 4 * (index - HOME_SLOTS);
            self.other_stars = self.other_stars & !(0xF << shift) | (nibbles & 0xF) << shift;
        }
    }

    /// Slots that currently hold a system, homes first.
    pub fn occupied_slots(&self) -> impl Iterator<Item = Slot> + '_ {
        (0..SLOT_COUNT as Slot).filter(move |&slot| self.system(slot).exists())
    }

    /// Whether any system holds four or more pieces of one colour, that is
    /// whether a catastrophe is available at all.
    pub fn has_overpopulation(&self) -> bool {
        (0..SLOT_COUNT as Slot).any(|slot| self.stored_pieces(slot).overpopulated_colours() != 0)
    }

    /// The overpopulated colours of one slot, as a bit mask (bit `c` for colour `c`).
    pub fn overpopulated_colours(&self, slot: Slot) -> u8 {
        self.stored_pieces(slot).overpopulated_colours()
    }

    /// The stars of the non-home slots, four bits a slot (0 for a free
    /// slot): with the homes, all that decides where a discovery goes.
    #[inline]
    pub(crate) fn non_home_stars(&self) -> u64 {
        self.other_stars
    }

    /// The lowest free non-home slot, where the next discovery goes.
    pub fn free_slot(&self) -> Option<Slot> {
        (0..(SLOT_COUNT - HOME_SLOTS))
            .find(|index| (self.other_stars >> (4 * index)) & 0xF == 0)
            .map(|index| (index + HOME_SLOTS) as Slot)
    }

    /// The bank, derived from the map.
    pub fn bank(&self) -> PieceSet {
        let mut used = PieceSet::EMPTY;
        for slot in 0..SLOT_COUNT as Slot {
            used = used.plus(self.system(slot).pieces());
        }
        used.complement()
    }

    /// Whether `player` is alive: their homeworld exists and holds one of
    /// their own ships (rules.md R11.1).
    pub fn is_alive(&self, player: Player) -> bool {
        home_word_alive(self.stored_word(player.index() as Slot), player)
    }

    /// Whether both players still have a live home after `patch`. Then,
    /// after setup, the turn may end there: [`Position::end_turn`] refuses
    /// only a self-elimination, or with the opponent gone the CLI's fatal
    /// overpopulation. Why: a counting enumerator settles the leaves that
    /// rewrite a home this way, without building their positions.
    #[inline]
    pub(crate) fn both_alive_after(&self, patch: &Patch) -> bool {
        [Player::First, Player::Second].into_iter().all(|player| {
            let slot = player.index() as Slot;
            let word = patch
                .writes()
                .iter()
                .find(|&&(written, _)| written == slot)
                .map_or_else(|| self.stored_word(slot), |&(_, word)| word);
            home_word_alive(word, player)
        })
    }

    /// The result as it stands between turns. During setup the game is ongoing.
    pub fn outcome(&self) -> Outcome {
        if self.in_setup() {
            return Outcome::Ongoing;
        }
        match (self.is_alive(Player::First), self.is_alive(Player::Second)) {
            (true, true) => Outcome::Ongoing,
            (true, false) => Outcome::Win(Player::First),
            (false, true) => Outcome::Win(Player::Second),
            (false, false) => Outcome::Draw,
        }
    }

    /// Builds a position from systems, for the text parsers. Validates the
    /// piece supply and the shape of each system; names are the caller's.
    pub fn from_parts(
        homes: [Option<System>; 2],
        created: [bool; 2],
        others: &[System],
        side_to_move: Player,
        turn_state: TurnState,
    ) -> Result<Position, SetupError> {
        let mut position = Position::start();
        let mut used = PieceSet::EMPTY;
        for (index, home) in homes.iter().enumerate() {
            if let Some(system) = home {
                if !created[index] {
                    return Err(SetupError::HomeNotCreated(index));
                }
                if system.stars.len() > 2 || system.stars.is_empty() {
                    return Err(SetupError::HomeStars(index));
                }
                if !used.fits_with(system.pieces()) {
                    return Err(SetupError::TooManyCopies);
                }
                used = used.plus(system.pieces());
                position.set_system(index as Slot, *system);
            }
        }
        if others.len() > SLOT_COUNT - HOME_SLOTS {
            return Err(SetupError::TooManySystems(others.len()));
        }
        for (index, system) in others.iter().enumerate() {
            if system.stars.len() != 1 {
                return Err(SetupError::SystemStars(index));
            }
            if system.has_no_ships() {
                return Err(SetupError::SystemWithoutShips(index));
            }
            if !used.fits_with(system.pieces()) {
                return Err(SetupError::TooManyCopies);
            }
            used = used.plus(system.pieces());
            position.set_system((index + HOME_SLOTS) as Slot, *system);
        }
        let mut meta = 0;
        if side_to_move == Player::Second {
            meta |= META_SIDE;
        }
        for player in Player::BOTH {
            if created[player.index()] {
                meta |= META_CREATED[player.index()];
            }
        }
        // Setup (R3.1): a player who has not created a homeworld starts their
        // turn; one who has is Done, between creating it and ending the turn.
        // Player 0 normally creates first, but after a setup pass
        // (`Rules::setup_pass`) player 1 may, so either order is accepted,
        // as is a pass in progress (Done with no homeworld yet).
        let in_setup = !(created[0] && created[1]);
        if in_setup {
            let setup_ok = match turn_state {
                TurnState::Start => !created[side_to_move.index()],
                TurnState::Done => created[side_to_move.index()] || !created[0] && !created[1],
                TurnState::Sacrifice { .. } => false,
            };
            if !setup_ok {
                return Err(SetupError::SetupOrder);
            }
        }
        position.set_meta(meta);
        position.set_turn_state(turn_state);
        Ok(position)
    }

    /// The non-home systems' packed words, sorted: the canonical multiset.
    fn sorted_other_words(&self) -> ([u64; SLOT_COUNT - HOME_SLOTS], usize) {
        let mut words = [0u64; SLOT_COUNT - HOME_SLOTS];
        let mut count = 0;
        for slot in HOME_SLOTS..SLOT_COUNT {
            let system = self.system(slot as Slot);
            if system.exists() {
                words[count] = system.word();
                count += 1;
            }
        }
        words[..count].sort_unstable();
        (words, count)
    }

    /// The canonical packed word of a slot (see [`System::word`]), straight
    /// from storage: what enumerators compare to tell identical systems.
    #[inline]
    pub(crate) fn slot_word(&self, slot: Slot) -> u64 {
        self.stored_word(slot)
    }

    /// Ends the turn: judges elimination (rules.md R11), enforces the
    /// profile's self-elimination and CLI rules, and hands the move over.
    /// Ending at the start of a turn is a pass, except in setup: a setup
    /// turn ends after its creation, or after an explicit [`Action::Pass`]
    /// where [`Rules::setup_pass`] allows one.
    ///
    /// # Errors
    /// Returns why the turn may not end like this; the position is then unchanged.
    pub fn end_turn(&mut self, rules: &Rules) -> Result<Outcome, IllegalReason> {
        let mover = self.side_to_move();
        if self.in_setup() {
            if !self.home_created(mover) && !self.is_setup_pass(rules) {
                return Err(IllegalReason::SetupIncomplete);
            }
        } else {
            let mover_alive = self.is_alive(mover);
            let opponent_alive = self.is_alive(mover.opponent());
            if !mover_alive && rules.self_elimination == SelfElimination::Illegal {
                return Err(IllegalReason::SelfElimination);
            }
            if mover_alive
                && !opponent_alive
                && rules.fatal_overpopulation_blocks_win
                && self.home_dies_to_catastrophes(rules, mover)
            {
                return Err(IllegalReason::FatalOverpopulation);
            }
        }
        let meta = (self.meta ^ META_SIDE) & ((1 << META_TURN_SHIFT) - 1);
        self.set_meta(meta);
        Ok(self.outcome())
    }

    /// The hash the position would have after [`Position::end_turn`], without
    /// ending it; for enumerators that only need to know the result's identity.
    pub fn hash_after_end(&self) -> u64 {
        let meta = (self.meta ^ META_SIDE) & ((1 << META_TURN_SHIFT) - 1);
        self.hash
            .wrapping_sub(META_KEYS[self.meta as usize])
            .wrapping_add(META_KEYS[meta as usize])
    }

    /// Whether firing every overpopulation at `player`'s home would eliminate
    /// them (the CLI's `fatalOverpopBlocksWin`, rules.md R8.7).
    fn home_dies_to_catastrophes(&self, rules: &Rules, player: Player) -> bool {
        let mut copy = *self;
        let slot = player.index() as Slot;
        loop {
            let home = copy.system(slot);
            let Some(colour) = Colour::ALL
                .into_iter()
                .find(|&colour| home.exists() && home.is_overpopulated(colour))
            else {
                break;
            };
            copy.apply_unchecked(
                rules,
                Action::Catastrophe {
                    system: slot,
                    colour,
                },
            );
        }
        !copy.is_alive(player)
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

impl PartialEq for Position {
    /// Equal when the side to move, setup progress, turn state, both homes and
    /// the multiset of other systems agree; names and slot order are ignored.
    fn eq(&self, other: &Position) -> bool {
        if self.hash != other.hash || self.meta != other.meta {
            return false;
        }
        if (0..HOME_SLOTS as Slot).any(|slot| self.system(slot) != other.system(slot)) {
            return false;
        }
        let (mine, my_count) = self.sorted_other_words();
        let (theirs, their_count) = other.sorted_other_words();
        mine[..my_count] == theirs[..their_count]
    }
}

impl Eq for Position {}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl fmt::Display for System {
    /// `stars:player-0-ships:player-1-ships`, the body of a system in HWPN.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "{}:{}:{}",
            self.stars, self.ships[0], self.ships[1]
        )
    }
}

impl fmt::Debug for Position {
    /// Slot by slot, with the side to move and the turn state: enough to
    /// read a failing test without depending on the notation layer.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "Position(")?;
        for slot in 0..SLOT_COUNT as Slot {
            let system = self.system(slot);
            if (slot as usize) < HOME_SLOTS || system.exists() {
                write!(formatter, "{}{system}", if slot == 0 { "" } else { "/" })?;
            }
        }
        write!(
            formatter,
            " {} {:?})",
            self.side_to_move(),
            self.turn_state()
        )
    }
}

/// Why a set of systems does not make a valid position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// A home holds no star or more than two.
    HomeStars(usize),
    /// A home is given for a player marked as not having created one.
    HomeNotCreated(usize),
    /// A non-home system (numbered from 0) does not have exactly one star.
    SystemStars(usize),
    /// A non-home system (numbered from 0) has no ships.
    SystemWithoutShips(usize),
    /// More than three copies of some piece.
    TooManyCopies,
    /// More non-home systems than the position can hold.
    TooManySystems(usize),
    /// The homes created do not fit the side to move and the turn state: in
    /// setup, a player who has created their homeworld cannot be starting a
    /// turn, and one who has not cannot be done with it.
    SetupOrder,
}

impl fmt::Display for SetupError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::HomeStars(player) => {
                write!(
                    formatter,
                    "player {player}'s homeworld must have 1 or 2 stars"
                )
            }
            SetupError::HomeNotCreated(player) => {
                write!(
                    formatter,
                    "player {player}'s homeworld is marked as not created"
                )
            }
            SetupError::SystemStars(index) => {
                write!(formatter, "system {} must have exactly one star", index + 1)
            }
            SetupError::SystemWithoutShips(index) => {
                write!(formatter, "system {} has no ships", index + 1)
            }
            SetupError::TooManyCopies => {
                formatter.write_str("more than three copies of a piece are on the map")
            }
            SetupError::TooManySystems(count) => write!(
                formatter,
                "{count} non-home systems, more than the {} a position can hold",
                SLOT_COUNT - HOME_SLOTS
            ),
            SetupError::SetupOrder => formatter.write_str(
                "homeworlds, side to move and turn state disagree: in setup the player to move is the one creating a homeworld",
            ),
        }
    }
}

impl std::error::Error for SetupError {}

#[cfg(test)]
mod tests;
