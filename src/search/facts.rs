//! Facts about a position that the evaluation, the priors and the solver's
//! bounds all need, gathered in one pass over the slots so that none of them
//! decodes the packed position more than once.

use crate::rules::{Colour, Piece, PieceSet, Player, Position, Slot, System, SLOT_COUNT};

/// Low bit of the 2-bit field of every piece type of size 1, 2 and 3.
const SIZE_MASKS: [u32; 3] = [0x0004_1041, 0x0010_4104, 0x0041_0410];

/// How many pieces of each size (index 0 = small) a set holds.
#[inline]
pub(crate) fn size_counts(set: PieceSet) -> [u32; 3] {
    let low = set.0;
    let high = set.0 >> 1;
    [0, 1, 2].map(|size| {
        (low & SIZE_MASKS[size]).count_ones() + 2 * (high & SIZE_MASKS[size]).count_ones()
    })
}

/// A bit mask of the colours present in a set (bit = colour index).
#[inline]
pub(crate) fn colour_mask(set: PieceSet) -> u8 {
    let mut mask = 0;
    for colour in Colour::ALL {
        if set.has_colour(colour) {
            mask |= 1 << colour.index();
        }
    }
    mask
}

/// The largest piece of `colour` in a set, as a size (0 when absent).
#[inline]
pub(crate) fn largest_of_colour(set: PieceSet, colour: Colour) -> u8 {
    set.of_colour(colour).largest_size()
}

/// Whether some colour has four or more pieces in the set: whether a
/// system with these pieces is overpopulated.
#[inline]
pub(crate) fn has_overpopulation(set: PieceSet) -> bool {
    set.len() >= 4
        && Colour::ALL
            .iter()
            .any(|&colour| set.colour_count(colour) >= 4)
}

/// The piece of a colour and size; both are always valid here.
#[inline]
pub(crate) fn piece(colour: Colour, size: u8) -> Piece {
    Piece::new(colour, size).expect("sizes are 1..=3")
}

/// The slot facts of a position.
pub(crate) struct Facts {
    /// Every slot's contents (empty systems for unused slots).
    pub systems: [System; SLOT_COUNT],
    /// Star-size mask per slot (bit `s` for size `s`).
    pub sizes: [u8; SLOT_COUNT],
    /// Occupied slots as a bit mask.
    pub occupied: u32,
    /// Occupied slots in order, homes first.
    pub slots: [Slot; SLOT_COUNT],
    /// Number of occupied slots.
    pub slot_count: usize,
    /// The bank.
    pub bank: PieceSet,
    /// Every ship of each player, wherever it is.
    pub fleet: [PieceSet; 2],
}

impl Facts {
    /// Gathers the facts in one pass.
    pub fn new(position: &Position) -> Facts {
        let mut systems = [System::default(); SLOT_COUNT];
        let mut sizes = [0; SLOT_COUNT];
        let mut occupied = 0;
        let mut slots = [0; SLOT_COUNT];
        let mut slot_count = 0;
        let mut used = PieceSet::EMPTY;
        let mut fleet = [PieceSet::EMPTY; 2];
        for slot in 0..SLOT_COUNT {
            let system = position.system(slot as Slot);
            if system.exists() {
                systems[slot] = system;
                sizes[slot] = system.size_mask();
                occupied |= 1 << slot;
                slots[slot_count] = slot as Slot;
                slot_count += 1;
                used = used.plus(system.pieces());
                fleet[0] = fleet[0].plus(system.ships[0]);
                fleet[1] = fleet[1].plus(system.ships[1]);
            }
        }
        Facts {
            systems,
            sizes,
            occupied,
            slots,
            slot_count,
            bank: used.complement(),
            fleet,
        }
    }

    /// The occupied slots.
    #[inline]
    pub fn slots(&self) -> &[Slot] {
        &self.slots[..self.slot_count]
    }

    /// Whether a slot holds a system.
    #[inline]
    pub fn exists(&self, slot: Slot) -> bool {
        self.occupied & (1 << slot) != 0
    }

    /// Whether two existing systems are connected (rules.md R4.1).
    #[inline]
    pub fn connected(&self, a: Slot, b: Slot) -> bool {
        a != b
            && self.exists(a)
            && self.exists(b)
            && self.sizes[a as usize] & self.sizes[b as usize] == 0
    }
}

/// The best red sacrifice of `attacker` by what it captures: see
/// [`sacrifice_shot`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SacrificeShot {
    /// Worth taken less the worth given up.
    pub net: f32,
    /// Where the red ship to give up is.
    pub slot: Slot,
    /// Its size: the number of captures it buys.
    pub size: u8,
}

/// What `attacker` takes with its best red sacrifice: a red ship of size
/// `s` given up buys `s` captures, each of an enemy ship no larger than the
/// attacker's largest in that system (the sacrificed ship no longer counts
/// there), best first by `worth` (indexed by size, 0 unused), less the
/// sacrificed ship's worth. `None` when no sacrifice gains anything.
///
/// Why it matters: two large ships moved next to a large enemy ship look
/// safe to a basic-capture test when the enemy has no red there, yet any
/// red ship of the enemy's elsewhere, sacrificed, takes both. A
/// one-turn-lookahead player sees that at once; a tree search must be told.
pub(crate) fn sacrifice_shot(
    facts: &Facts,
    attacker: Player,
    worth: [f32; 4],
) -> Option<SacrificeShot> {
    let own = attacker.index();
    let total = capturable(facts, attacker);
    if total == [0; 3] {
        return None;
    }
    let mut best: Option<SacrificeShot> = None;
    for &slot in facts.slots() {
        let size = largest_of_colour(facts.systems[slot as usize].ships[own], Colour::Red);
        if size == 0 {
            continue;
        }
        let net = sacrifice_net(facts, attacker, slot, size, total, worth);
        if net > 0.0 && best.is_none_or(|shot| net > shot.net) {
            best = Some(SacrificeShot { net, slot, size });
        }
    }
    best
}

/// The enemy ships, by size (index 0 = small), that `attacker` could
/// capture, each where it has a ship at least as large.
#[inline]
pub(crate) fn capturable(facts: &Facts, attacker: Player) -> [u32; 3] {
    let own = attacker.index();
    let mut total = [0u32; 3];
    for &slot in facts.slots() {
        let system = facts.systems[slot as usize];
        let counts = reachable(system.ships[own], system.ships[1 - own]);
        for size in 0..3 {
            total[size] += counts[size];
        }
    }
    total
}

/// What sacrificing `attacker`'s red ship of `size` at `slot` takes net:
/// `size` captures among `total` (see [`capturable`]), the best first by
/// `worth`, with the ship gone from its system, less the ship's worth.
pub(crate) fn sacrifice_net(
    facts: &Facts,
    attacker: Player,
    slot: Slot,
    size: u8,
    total: [u32; 3],
    worth: [f32; 4],
) -> f32 {
    let own = attacker.index();
    let system = facts.systems[slot as usize];
    let mut left = system.ships[own];
    left.remove(piece(Colour::Red, size));
    let before = reachable(system.ships[own], system.ships[1 - own]);
    let after = reachable(left, system.ships[1 - own]);
    let mut captures = size as u32;
    let mut net = -worth[size as usize];
    for target in (0..3).rev() {
        let available = total[target] - before[target] + after[target];
        let count = available.min(captures);
        net += count as f32 * worth[target + 1];
        captures -= count;
    }
    net
}

/// How many of `theirs` (by size, index 0 = small) ships as large as the
/// largest of `mine` at most could capture.
#[inline]
pub(crate) fn reachable(mine: PieceSet, theirs: PieceSet) -> [u32; 3] {
    let reach = mine.largest_size() as usize;
    let counts = size_counts(theirs);
    [0, 1, 2].map(|size| if size < reach { counts[size] } else { 0 })
}
