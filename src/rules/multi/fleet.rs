//! The multi-player position's pieces: sets of seats, fleets with counts
//! wide enough for seven copies of a piece, and systems with a fleet per
//! seat.

use std::fmt;

use super::{Seat, MAX_PLAYERS};
use crate::rules::legality::PieceCounts;
use crate::rules::piece::{Colour, Piece, PieceSet};

/// A set of seats, one bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Seats(pub u8);

impl Seats {
    /// No seat.
    pub const EMPTY: Seats = Seats(0);

    /// The first `count` seats.
    pub fn first(count: usize) -> Seats {
        Seats(((1u16 << count) - 1) as u8)
    }

    /// Whether `seat` is in the set.
    pub fn contains(self, seat: Seat) -> bool {
        self.0 >> seat & 1 != 0
    }

    /// Adds `seat`.
    pub fn insert(&mut self, seat: Seat) {
        self.0 |= 1 << seat;
    }

    /// The seats in the set, in order.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        (0..8).filter(move |&seat| self.contains(seat))
    }

    /// How many seats.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The seats in `self` and not in `other`.
    pub fn without(self, other: Seats) -> Seats {
        Seats(self.0 & !other.0)
    }

    /// The seats in both.
    pub fn and(self, other: Seats) -> Seats {
        Seats(self.0 & other.0)
    }
}

/// A multiset of pieces with 4-bit counts: a fleet, a system's stars or the
/// bank of a game with up to seven copies of each piece.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fleet(pub u64);

impl Fleet {
    /// The empty fleet.
    pub const EMPTY: Fleet = Fleet(0);

    /// `copies` of every piece: the whole set of a game.
    pub fn full(copies: u8) -> Fleet {
        let mut fleet = Fleet::EMPTY;
        for piece in Piece::ALL {
            fleet.0 |= (copies as u64) << (4 * piece.index());
        }
        fleet
    }

    /// The same pieces as a two-player [`PieceSet`] (counts up to 3).
    pub fn from_set(set: PieceSet) -> Fleet {
        let mut fleet = Fleet::EMPTY;
        for piece in Piece::ALL {
            fleet.0 |= (set.count(piece) as u64) << (4 * piece.index());
        }
        fleet
    }

    /// Adds one copy of `piece`.
    pub fn add(&mut self, piece: Piece) {
        self.0 += 1 << (4 * piece.index());
    }

    /// Removes one copy of `piece`; the caller guarantees it is there.
    pub fn remove(&mut self, piece: Piece) {
        debug_assert!(self.count(piece) > 0);
        self.0 -= 1 << (4 * piece.index());
    }

    /// The sum of two fleets (counts stay below 16: at most 7 copies exist).
    pub fn plus(self, other: Fleet) -> Fleet {
        Fleet(self.0 + other.0)
    }

    /// The pieces of `self` not in `other`; `other` must be a part of `self`.
    pub fn minus(self, other: Fleet) -> Fleet {
        Fleet(self.0 - other.0)
    }

    /// Every piece of `colour` removed.
    pub fn without_colour(self, colour: Colour) -> Fleet {
        Fleet(self.0 & !(0xFFF << (12 * colour.index())))
    }

    /// Pieces of `colour`, for overpopulation (R8.1).
    pub fn colour_count(self, colour: Colour) -> u32 {
        (1..=3)
            .filter_map(|size| Piece::new(colour, size))
            .map(|piece| PieceCounts::count(self, piece))
            .sum()
    }

    /// Every copy, in canonical order, repeating duplicates.
    pub fn copies(self) -> impl Iterator<Item = Piece> {
        Piece::ALL.into_iter().flat_map(move |piece| {
            std::iter::repeat_n(piece, PieceCounts::count(self, piece) as usize)
        })
    }

    /// The distinct pieces present, in canonical order.
    pub fn types(self) -> impl Iterator<Item = Piece> {
        Piece::ALL
            .into_iter()
            .filter(move |&piece| PieceCounts::count(self, piece) > 0)
    }

    /// Whether the fleet holds nothing.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The number of pieces.
    pub fn len(self) -> u32 {
        Piece::ALL
            .iter()
            .map(|&piece| PieceCounts::count(self, piece))
            .sum()
    }

    /// Star sizes as a mask (bit `s` for size `s`): systems connect when
    /// their masks are disjoint (R4.1).
    pub fn size_mask(self) -> u8 {
        self.types().fold(0, |mask, piece| mask | 1 << piece.size())
    }

    /// Colours present, one bit each.
    pub fn colour_mask(self) -> u8 {
        Colour::ALL
            .iter()
            .filter(|&&colour| self.has_colour(colour))
            .fold(0, |mask, &colour| mask | 1 << colour.index())
    }
}

impl PieceCounts for Fleet {
    #[inline]
    fn count(self, piece: Piece) -> u32 {
        ((self.0 >> (4 * piece.index())) & 15) as u32
    }
    #[inline]
    fn has_colour(self, colour: Colour) -> bool {
        self.0 & (0xFFF << (12 * colour.index())) != 0
    }
    fn largest_size(self) -> u8 {
        self.types().map(Piece::size).max().unwrap_or(0)
    }
    fn smallest_of_colour(self, colour: Colour) -> Option<Piece> {
        (1..=3)
            .filter_map(|size| Piece::new(colour, size))
            .find(|&piece| self.count(piece) > 0)
    }
    #[inline]
    fn is_empty(self) -> bool {
        Fleet::is_empty(self)
    }
}

impl fmt::Display for Fleet {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        for piece in self.copies() {
            write!(formatter, "{piece}")?;
        }
        Ok(())
    }
}

/// One system: its stars and every player's ships there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MultiSystem {
    /// The stars: none for an empty slot, one for a non-home system, one or
    /// two for a home.
    pub stars: Fleet,
    /// Ships by seat.
    pub ships: [Fleet; MAX_PLAYERS],
}

impl MultiSystem {
    /// Whether a system is here (every live system has a star).
    pub fn exists(&self) -> bool {
        !self.stars.is_empty()
    }

    /// Every ship of every player.
    pub fn all_ships(&self) -> Fleet {
        self.ships
            .iter()
            .fold(Fleet::EMPTY, |all, &fleet| all.plus(fleet))
    }

    /// Every piece, stars and ships.
    pub fn pieces(&self) -> Fleet {
        self.stars.plus(self.all_ships())
    }

    /// Colours `seat` may use for a basic action here (R5.1).
    pub fn access(&self, seat: Seat) -> u8 {
        self.stars.plus(self.ships[seat as usize]).colour_mask()
    }

    /// Whether `colour` is overpopulated here (4 or more pieces, R8.1).
    pub fn is_overpopulated(&self, colour: Colour) -> bool {
        self.pieces().colour_count(colour) >= 4
    }
}
