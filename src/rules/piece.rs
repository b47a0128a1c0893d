//! Pyramids: four colours times three sizes, three identical copies of each.
//!
//! A [`Piece`] is a piece *type* (colour and size), never a particular copy:
//! copies cannot be told apart under the rules (rules.md R1.3), so the engine
//! never tracks them. The index order `colour * 3 + (size - 1)` with colours
//! red < yellow < green < blue is also the canonical printing order of every
//! notation (rules.md §14), so sorting by index sorts text the right way.

use std::fmt;

/// One of the four colours, each of which grants one power.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Colour {
    /// Capture.
    Red = 0,
    /// Move and discover.
    Yellow = 1,
    /// Build.
    Green = 2,
    /// Trade.
    Blue = 3,
}

impl Colour {
    /// All colours in canonical order, for loops that must visit each once.
    pub const ALL: [Colour; 4] = [Colour::Red, Colour::Yellow, Colour::Green, Colour::Blue];

    /// The colour with this index (0..4), so packed encodings can be decoded.
    pub fn from_index(index: usize) -> Option<Colour> {
        Colour::ALL.get(index).copied()
    }

    /// Index 0..4 for table lookups.
    pub fn index(self) -> usize {
        self as usize
    }

    /// One lower-case letter, as used by every compact notation.
    pub fn letter(self) -> char {
        ['r', 'y', 'g', 'b'][self.index()]
    }

    /// The lower-case English word, as SDG and the CLI print it.
    pub fn word(self) -> &'static str {
        ["red", "yellow", "green", "blue"][self.index()]
    }

    /// Parses a colour letter or word in any case (`g`, `Green`, `GREEN`),
    /// because real records use all of these.
    pub fn parse(text: &str) -> Option<Colour> {
        let lower = text.to_ascii_lowercase();
        Colour::ALL.into_iter().find(|colour| {
            lower == colour.word() || lower.len() == 1 && lower.starts_with(colour.letter())
        })
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.word())
    }
}

/// A piece type: colour and size. Twelve exist, three copies of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Piece(u8);

impl Piece {
    /// The number of piece types.
    pub const COUNT: usize = 12;
    /// Copies of each type in the set (rules.md R1.1).
    pub const COPIES: u8 = 3;

    /// Every piece type in canonical order.
    pub const ALL: [Piece; 12] = [
        Piece(0),
        Piece(1),
        Piece(2),
        Piece(3),
        Piece(4),
        Piece(5),
        Piece(6),
        Piece(7),
        Piece(8),
        Piece(9),
        Piece(10),
        Piece(11),
    ];

    /// The piece of this colour and size (1..=3); `None` for a bad size, so
    /// callers parsing text cannot build an impossible piece.
    pub fn new(colour: Colour, size: u8) -> Option<Piece> {
        (1..=3)
            .contains(&size)
            .then(|| Piece(colour as u8 * 3 + size - 1))
    }

    /// The piece with this index (0..12), for decoding packed forms.
    pub fn from_index(index: usize) -> Option<Piece> {
        (index < Piece::COUNT).then_some(Piece(index as u8))
    }

    /// Index 0..12 in canonical order.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The colour, which decides the power the piece grants.
    pub fn colour(self) -> Colour {
        Colour::ALL[(self.0 / 3) as usize]
    }

    /// The size 1..=3 (small, medium, large), which is also the pip count.
    pub fn size(self) -> u8 {
        self.0 % 3 + 1
    }

    /// Parses `g1`, `G1`: a colour letter and a size digit. Any other text,
    /// including non-ASCII, is `None`.
    pub fn parse(text: &str) -> Option<Piece> {
        let &[letter, digit] = text.as_bytes() else {
            return None;
        };
        let colour = Colour::ALL
            .into_iter()
            .find(|colour| letter.to_ascii_lowercase() == colour.letter() as u8)?;
        let size = (digit as char).to_digit(10)?;
        Piece::new(colour, size as u8)
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}{}", self.colour().letter(), self.size())
    }
}

/// The two players. Player 0 creates a homeworld first and moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Player {
    /// The first player.
    First = 0,
    /// The second player.
    Second = 1,
}

impl Player {
    /// Both players, in turn order.
    pub const BOTH: [Player; 2] = [Player::First, Player::Second];

    /// The player with this number (0 or 1).
    pub fn from_index(index: usize) -> Option<Player> {
        Player::BOTH.get(index).copied()
    }

    /// 0 or 1.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The other player.
    pub fn opponent(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}", self.index())
    }
}

/// A multiset of piece types with counts 0..=3, packed 2 bits per type.
///
/// This is the building block of the position: each system holds one for each
/// player's ships, and the bank is one too. Counts never exceed 3 because only
/// three copies of a type exist, so additions never carry between fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PieceSet(pub u32);

/// Bit masks selecting the low bit of the 2-bit field of every type of one size.
const SIZE_MASKS: [u32; 3] = [0x0004_1041, 0x0010_4104, 0x0041_0410];

impl PieceSet {
    /// The empty set.
    pub const EMPTY: PieceSet = PieceSet(0);
    /// Three of every type: the full set of 36 pieces.
    pub const FULL: PieceSet = PieceSet(0x00FF_FFFF);
    /// The low bit of every 2-bit field.
    const LOW_BITS: u32 = 0x0055_5555;

    /// A set holding one copy of `piece`.
    pub fn single(piece: Piece) -> PieceSet {
        PieceSet(1 << (2 * piece.index()))
    }

    /// How many copies of `piece` are in the set.
    pub fn count(self, piece: Piece) -> u8 {
        ((self.0 >> (2 * piece.index())) & 3) as u8
    }

    /// Whether the set holds no pieces.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Adds one copy. The caller guarantees the count stays at most 3.
    pub fn add(&mut self, piece: Piece) {
        debug_assert!(self.count(piece) < 3);
        self.0 += 1 << (2 * piece.index());
    }

    /// Removes one copy. The caller guarantees the piece is present.
    pub fn remove(&mut self, piece: Piece) {
        debug_assert!(self.count(piece) > 0);
        self.0 -= 1 << (2 * piece.index());
    }

    /// Sum of two sets whose per-type totals stay at most 3.
    pub fn plus(self, other: PieceSet) -> PieceSet {
        PieceSet(self.0 + other.0)
    }

    /// The types present whose size is not in `sizes` (bit `s` for size
    /// `s`, as [`PieceSet::size_mask`]), in canonical order: the stars a
    /// ship can discover from a system with those star sizes, found with
    /// one mask instead of a test a type.
    #[inline]
    pub(crate) fn types_sized_outside(self, sizes: u8) -> PieceTypes {
        let mut kept = 0;
        for (size, mask) in SIZE_MASKS.iter().enumerate() {
            if sizes & 1 << (size + 1) == 0 {
                kept |= mask;
            }
        }
        PieceTypes(self.presence() & kept)
    }

    /// One bit per present type (on the low bit of its field), which makes
    /// "which types are here" a single mask operation.
    fn presence(self) -> u32 {
        (self.0 | (self.0 >> 1)) & Self::LOW_BITS
    }

    /// The sizes present, as a bit mask (bit `s` for size `s`), without
    /// iterating: the move generator asks it of every system it looks at.
    #[inline]
    pub fn size_mask(self) -> u8 {
        // Fold the four colours' fields onto the first colour's: bits 0, 2
        // and 4 then say whether sizes 1, 2 and 3 are present.
        let presence = self.presence();
        let folded = presence | presence >> 6 | presence >> 12 | presence >> 18;
        ((folded & 1) << 1 | (folded & 4) | (folded & 16) >> 1) as u8
    }

    /// Iterates over the distinct types present, in canonical order.
    pub fn types(self) -> PieceTypes {
        PieceTypes(self.presence())
    }

    /// Iterates over every copy, in canonical order, repeating duplicates.
    pub fn copies(self) -> impl Iterator<Item = Piece> {
        self.types()
            .flat_map(move |piece| std::iter::repeat_n(piece, self.count(piece) as usize))
    }

    /// Total number of pieces.
    pub fn len(self) -> u32 {
        (self.0 & Self::LOW_BITS).count_ones() + 2 * ((self.0 >> 1) & Self::LOW_BITS).count_ones()
    }

    /// How many pieces of `colour` are in the set, for overpopulation counts.
    pub fn colour_count(self, colour: Colour) -> u32 {
        let field = (self.0 >> (6 * colour.index())) & 0x3F;
        (field & 3) + ((field >> 2) & 3) + ((field >> 4) & 3)
    }

    /// Colours with four or more pieces in the set, as a bit mask (bit `c`
    /// for colour `c`). The three 2-bit counts of each colour are summed into
    /// a 4-bit field in parallel; a sum of 4 or more sets bit 2 or 3 of it.
    #[inline]
    pub fn overpopulated_colours(self) -> u8 {
        const FIRST_FIELDS: u32 = 0x000C_30C3;
        let x = self.0;
        let sums = (x & FIRST_FIELDS) + ((x >> 2) & FIRST_FIELDS) + ((x >> 4) & FIRST_FIELDS);
        let high = (sums >> 2) & FIRST_FIELDS;
        let mut mask = 0;
        for colour in 0..4 {
            if high >> (6 * colour) & 3 != 0 {
                mask |= 1 << colour;
            }
        }
        mask
    }

    /// The set restricted to one colour.
    pub fn of_colour(self, colour: Colour) -> PieceSet {
        PieceSet(self.0 & (0x3F << (6 * colour.index())))
    }

    /// The set with every piece of `colour` removed.
    pub fn without_colour(self, colour: Colour) -> PieceSet {
        PieceSet(self.0 & !(0x3F << (6 * colour.index())))
    }

    /// Whether any piece of `colour` is present.
    pub fn has_colour(self, colour: Colour) -> bool {
        self.of_colour(colour).0 != 0
    }

    /// The largest size present, or 0 for an empty set. Capture legality
    /// depends on it (rules.md §6.4).
    pub fn largest_size(self) -> u8 {
        let presence = self.presence();
        if presence & SIZE_MASKS[2] != 0 {
            3
        } else if presence & SIZE_MASKS[1] != 0 {
            2
        } else if presence != 0 {
            1
        } else {
            0
        }
    }

    /// The smallest piece of `colour` in the set: what a build takes from the bank.
    pub fn smallest_of_colour(self, colour: Colour) -> Option<Piece> {
        let field = (self.0 >> (6 * colour.index())) & 0x3F;
        (0..3u8)
            .find(|size| (field >> (2 * size)) & 3 != 0)
            .and_then(|size| Piece::new(colour, size + 1))
    }

    /// Bank complement: 3 minus each count. Valid only when every count is at most 3.
    pub fn complement(self) -> PieceSet {
        PieceSet(Self::FULL.0 - self.0)
    }

    /// Whether every count is at most 3 after adding `other`, checked per field
    /// so that text input with too many copies is caught instead of overflowing.
    pub fn fits_with(self, other: PieceSet) -> bool {
        Piece::ALL
            .iter()
            .all(|&piece| self.count(piece) + other.count(piece) <= 3)
    }
}

impl fmt::Display for PieceSet {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        for piece in self.copies() {
            write!(formatter, "{piece}")?;
        }
        Ok(())
    }
}

/// Iterator over the distinct types of a [`PieceSet`].
#[derive(Clone, Copy, Debug)]
pub struct PieceTypes(u32);

impl Iterator for PieceTypes {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Piece((bit / 2) as u8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_round_trips_through_text() {
        for piece in Piece::ALL {
            assert_eq!(Piece::parse(&piece.to_string()), Some(piece));
            assert_eq!(Piece::new(piece.colour(), piece.size()), Some(piece));
        }
        assert_eq!(Piece::parse("G3"), Piece::new(Colour::Green, 3));
        assert_eq!(Piece::parse("g4"), None);
        assert_eq!(Piece::parse("x1"), None);
        assert_eq!(Piece::parse("g"), None);
        assert_eq!(Piece::parse("é"), None);
        assert_eq!(Piece::parse("gé"), None);
    }

    #[test]
    fn types_sized_outside_keeps_the_other_sizes_in_order() {
        let mut set = PieceSet::EMPTY;
        for text in ["r1", "r1", "y2", "g3", "b1", "b2", "b3", "b3"] {
            set.add(Piece::parse(text).unwrap());
        }
        for sizes in (0..8u8).map(|class| class << 1) {
            let kept: Vec<Piece> = set.types_sized_outside(sizes).collect();
            let expected: Vec<Piece> = set
                .types()
                .filter(|piece| sizes & 1 << piece.size() == 0)
                .collect();
            assert_eq!(kept, expected, "sizes {sizes:04b}");
        }
        let names = |sizes| {
            set.types_sized_outside(sizes)
                .map(|piece| piece.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(names(0b0100), "r1 g3 b1 b3");
        assert_eq!(names(0b1110), "");
        assert_eq!(names(0), "r1 y2 g3 b1 b2 b3");
    }

    #[test]
    fn piece_set_counts_and_sizes() {
        let mut set = PieceSet::EMPTY;
        let g1 = Piece::parse("g1").unwrap();
        let g3 = Piece::parse("g3").unwrap();
        let r2 = Piece::parse("r2").unwrap();
        set.add(g1);
        set.add(g1);
        set.add(g3);
        set.add(r2);
        assert_eq!(set.count(g1), 2);
        assert_eq!(set.len(), 4);
        assert_eq!(set.colour_count(Colour::Green), 3);
        assert_eq!(set.largest_size(), 3);
        assert_eq!(set.smallest_of_colour(Colour::Green), Some(g1));
        assert_eq!(set.smallest_of_colour(Colour::Blue), None);
        assert_eq!(set.types().collect::<Vec<_>>(), vec![r2, g1, g3]);
        assert_eq!(set.to_string(), "r2g1g1g3");
        assert_eq!(PieceSet::FULL.len(), 36);
        assert_eq!(PieceSet::FULL.overpopulated_colours(), 0b1111);
        assert_eq!(set.overpopulated_colours(), 0);
        set.add(Piece::parse("g2").unwrap());
        assert_eq!(set.overpopulated_colours(), 1 << Colour::Green.index());
        assert_eq!(PieceSet::FULL.complement(), PieceSet::EMPTY);
    }

    #[test]
    fn size_mask_has_the_bit_of_every_size_present() {
        // Every set of at most two types, with every count: all star pairs
        // and more, against the mask built piece by piece.
        for first in 0..Piece::COUNT {
            for second in first..Piece::COUNT {
                for count in 1..=3 {
                    let mut set = PieceSet::EMPTY;
                    for _ in 0..count {
                        set.add(Piece::ALL[first]);
                    }
                    if second != first {
                        set.add(Piece::ALL[second]);
                    }
                    let expected = set.types().fold(0, |mask, piece| mask | 1 << piece.size());
                    assert_eq!(set.size_mask(), expected, "{set}");
                }
            }
        }
        assert_eq!(PieceSet::EMPTY.size_mask(), 0);
        assert_eq!(PieceSet::FULL.size_mask(), 0b1110);
    }
}
