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

use std::fmt;

use super::legality::{self, ColourActionFacts};
use super::piece::{Colour, Piece, PieceSet, Player};
use super::profile::{Rules, SelfElimination};

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

/// One step of a turn: what the single-action generator produces and what a
/// turn is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Setup: create the mover's homeworld. `second_star` is `None` only
    /// under the one-star-home handicap.
    Homeworld {
        /// The first star.
        star: Piece,
        /// The second star, if any.
        second_star: Option<Piece>,
        /// The starting ship.
        ship: Piece,
    },
    /// Green: take the smallest bank piece of `piece`'s colour as a new ship.
    /// The size is forced; naming another size is illegal (rules.md T10).
    Build {
        /// Where.
        system: Slot,
        /// The piece built.
        piece: Piece,
    },
    /// Blue: exchange a ship for a bank piece of the same size and another colour.
    Trade {
        /// Where.
        system: Slot,
        /// The ship given up.
        from: Piece,
        /// The piece taken.
        to: Piece,
    },
    /// Yellow: move a ship to a connected existing system.
    Move {
        /// Origin.
        from: Slot,
        /// Destination.
        to: Slot,
        /// The ship.
        ship: Piece,
    },
    /// Yellow: create a system with a bank piece as its star and move a ship there.
    Discover {
        /// Origin.
        from: Slot,
        /// The ship.
        ship: Piece,
        /// The new star, whose size must differ from the origin's stars.
        star: Piece,
    },
    /// Red: take over an enemy ship no larger than the mover's largest ship there.
    Capture {
        /// Where.
        system: Slot,
        /// The enemy ship.
        ship: Piece,
    },
    /// Return an own ship to the bank for up to `size` actions of its colour.
    Sacrifice {
        /// Where.
        system: Slot,
        /// The ship.
        ship: Piece,
    },
    /// Destroy every piece of an overpopulated colour in a system.
    Catastrophe {
        /// Where.
        system: Slot,
        /// The overpopulated colour.
        colour: Colour,
    },
    /// Do nothing: the turn's core at the start, or (notation only) one unused
    /// sacrifice action. Under [`Rules::setup_pass`] it may also be a whole
    /// setup turn while neither homeworld exists.
    Pass,
}

impl Action {
    /// The power an action needs, if it is one of the four colour actions.
    pub fn power(self) -> Option<Colour> {
        match self {
            Action::Build { .. } => Some(Colour::Green),
            Action::Trade { .. } => Some(Colour::Blue),
            Action::Move { .. } | Action::Discover { .. } => Some(Colour::Yellow),
            Action::Capture { .. } => Some(Colour::Red),
            _ => None,
        }
    }

    /// Packs the action into 32 bits, for tree edges: kind in bits 0..4, then
    /// two 5-bit slots and three 4-bit piece fields.
    pub fn pack(self) -> u32 {
        let piece = |piece: Piece| piece.index() as u32 + 1;
        let (kind, first, second, a, b, c) = match self {
            Action::Homeworld {
                star,
                second_star,
                ship,
            } => (
                1,
                0,
                0,
                piece(star),
                second_star.map_or(0, piece),
                piece(ship),
            ),
            Action::Build { system, piece: p } => (2, system as u32, 0, piece(p), 0, 0),
            Action::Trade { system, from, to } => (3, system as u32, 0, piece(from), piece(to), 0),
            Action::Move { from, to, ship } => (4, from as u32, to as u32, piece(ship), 0, 0),
            Action::Discover { from, ship, star } => {
                (5, from as u32, 0, piece(ship), piece(star), 0)
            }
            Action::Capture { system, ship } => (6, system as u32, 0, piece(ship), 0, 0),
            Action::Sacrifice { system, ship } => (7, system as u32, 0, piece(ship), 0, 0),
            Action::Catastrophe { system, colour } => {
                (8, system as u32, 0, colour as u32 + 1, 0, 0)
            }
            Action::Pass => (9, 0, 0, 0, 0, 0),
        };
        kind | first << 4 | second << 9 | a << 14 | b << 18 | c << 22
    }

    /// Unpacks [`Action::pack`]; `None` for a value no action packs to.
    pub fn unpack(bits: u32) -> Option<Action> {
        let first = ((bits >> 4) & 31) as Slot;
        let second = ((bits >> 9) & 31) as Slot;
        let field = |shift: u32| ((bits >> shift) & 15) as usize;
        let piece = |shift: u32| field(shift).checked_sub(1).and_then(Piece::from_index);
        Some(match bits & 15 {
            1 => Action::Homeworld {
                star: piece(14)?,
                second_star: piece(18),
                ship: piece(22)?,
            },
            2 => Action::Build {
                system: first,
                piece: piece(14)?,
            },
            3 => Action::Trade {
                system: first,
                from: piece(14)?,
                to: piece(18)?,
            },
            4 => Action::Move {
                from: first,
                to: second,
                ship: piece(14)?,
            },
            5 => Action::Discover {
                from: first,
                ship: piece(14)?,
                star: piece(18)?,
            },
            6 => Action::Capture {
                system: first,
                ship: piece(14)?,
            },
            7 => Action::Sacrifice {
                system: first,
                ship: piece(14)?,
            },
            8 => Action::Catastrophe {
                system: first,
                colour: Colour::from_index(field(14).checked_sub(1)?)?,
            },
            9 => Action::Pass,
            _ => return None,
        })
    }
}

/// Why an action or the end of a turn is illegal. Each variant names the
/// rule, so that error messages can say exactly what is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalReason {
    /// The game is already over.
    GameOver,
    /// A homeworld can only be created in the player's setup turn.
    HomeworldOutsideSetup,
    /// A setup turn creates a homeworld and does nothing else: no pass, no
    /// other action (the SDG site accepted passes here; see
    /// [`Rules::setup_pass`]).
    SetupNeedsHomeworld,
    /// Under [`Rules::setup_pass`], a setup turn may be passed only while
    /// neither homeworld exists: once the other player has created theirs,
    /// a pass would give them a normal turn against a player with no home.
    SetupPassAfterHomeworld,
    /// The homeworld would use pieces the bank does not have.
    HomeworldPiecesUnavailable,
    /// The rules require a Large starting ship.
    StartingShipNotLarge,
    /// The rules require two stars.
    OneStarHome,
    /// The turn's core (pass, basic action or sacrifice) is already used.
    TurnCoreUsed,
    /// A sacrifice action of another colour than the sacrificed ship's.
    WrongSacrificeColour,
    /// The slot holds no system.
    NoSuchSystem,
    /// The mover has no ship in that system.
    NoOwnShipThere,
    /// The mover does not own that ship there.
    NoSuchShip,
    /// A basic action needs its colour among the system's stars or own ships.
    NoAccess,
    /// A build needs an own ship of the built colour in the system.
    NoShipOfColour,
    /// The bank has no piece of that colour.
    BankEmptyOfColour,
    /// Builds take the smallest bank piece of the colour.
    BuildSizeNotSmallest,
    /// A trade must change colour.
    TradeSameColour,
    /// A trade keeps the size.
    TradeSizeChanges,
    /// The bank lacks the piece asked for.
    PieceNotInBank,
    /// The destination is the origin.
    MoveToSameSystem,
    /// The two systems share a star size.
    NotConnected,
    /// A discovered star must differ in size from the origin's stars.
    DiscoverySizeShared,
    /// No slot is free for a new system (see the module docs).
    NoFreeSlot,
    /// The target is not an enemy ship there.
    NoEnemyShip,
    /// Capturing needs an own ship at least as large as the target.
    TargetTooLarge,
    /// A catastrophe needs four pieces of the colour.
    NotOverpopulated,
    /// The catastrophe timing rule forbids a catastrophe now.
    CatastropheTiming,
    /// The turn would eliminate the mover and the rules forbid that.
    SelfElimination,
    /// The win leaves a fatal overpopulation at the mover's home (CLI rule).
    FatalOverpopulation,
    /// The homeworld has not been created yet, so the setup turn cannot end.
    SetupIncomplete,
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            IllegalReason::GameOver => "the game is over",
            IllegalReason::HomeworldOutsideSetup => {
                "a homeworld can only be created in the player's setup turn (R3.1)"
            }
            IllegalReason::SetupNeedsHomeworld => {
                "a setup turn must create a homeworld and do nothing else (R3.2)"
            }
            IllegalReason::SetupPassAfterHomeworld => {
                "a setup turn may be passed only while neither homeworld exists (R3.7): the other player has created theirs"
            }
            IllegalReason::HomeworldPiecesUnavailable => {
                "the bank does not have those pieces (R3.5)"
            }
            IllegalReason::StartingShipNotLarge => "the starting ship must be Large (R3.3)",
            IllegalReason::OneStarHome => "a homeworld needs two stars (R3.2)",
            IllegalReason::TurnCoreUsed => {
                "the turn already has its pass, basic action or sacrifice (R10.2)"
            }
            IllegalReason::WrongSacrificeColour => {
                "sacrifice actions must be of the sacrificed ship's colour (§7.1)"
            }
            IllegalReason::NoSuchSystem => "no such system",
            IllegalReason::NoOwnShipThere => "the mover has no ship in that system (R7.4)",
            IllegalReason::NoSuchShip => "the mover has no such ship there",
            IllegalReason::NoAccess => "that colour is not available there (R5.2)",
            IllegalReason::NoShipOfColour => {
                "a build needs an own ship of that colour in the system (§6.1)"
            }
            IllegalReason::BankEmptyOfColour => "the bank has no piece of that colour",
            IllegalReason::BuildSizeNotSmallest => {
                "a build takes the smallest piece of the colour in the bank (§6.1)"
            }
            IllegalReason::TradeSameColour => "a trade must change colour (§6.2)",
            IllegalReason::TradeSizeChanges => "a trade keeps the size (§6.2)",
            IllegalReason::PieceNotInBank => "that piece is not in the bank",
            IllegalReason::MoveToSameSystem => "the ship is already there",
            IllegalReason::NotConnected => {
                "the systems share a star size, so they are not connected (R4.1)"
            }
            IllegalReason::DiscoverySizeShared => {
                "the new star's size must differ from the origin's stars (R4.3)"
            }
            IllegalReason::NoFreeSlot => "no room for another system",
            IllegalReason::NoEnemyShip => "no such enemy ship there",
            IllegalReason::TargetTooLarge => {
                "the mover's largest ship there is smaller than the target (§6.4)"
            }
            IllegalReason::NotOverpopulated => "that colour is not overpopulated there (R8.1)",
            IllegalReason::CatastropheTiming => {
                "these rules do not allow a catastrophe at this point (R8.6)"
            }
            IllegalReason::SelfElimination => "the turn would eliminate the mover (R11.3)",
            IllegalReason::FatalOverpopulation => {
                "the win leaves a fatal overpopulation at the mover's home (R8.7)"
            }
            IllegalReason::SetupIncomplete => "the setup turn must create a homeworld (R3.2)",
        };
        formatter.write_str(text)
    }
}

impl std::error::Error for IllegalReason {}

/// The change one action makes: new words for at most two slots and new
/// turn bits. See [`Position::patch`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Patch {
    writes: [(Slot, u64); 2],
    len: usize,
    meta: u16,
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
        let me = mover.index();
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
        let state = self.turn_state();
        let system_at = |slot: Slot| -> Result<System, IllegalReason> {
            if slot as usize >= SLOT_COUNT {
                return Err(IllegalReason::NoSuchSystem);
            }
            let system = self.system(slot);
            if system.exists() {
                Ok(system)
            } else {
                Err(IllegalReason::NoSuchSystem)
            }
        };
        match action {
            Action::Homeworld { .. } => unreachable!("handled above"),
            Action::Pass => legality::check_pass(state),
            Action::Catastrophe { system, colour } => legality::check_catastrophe(
                rules,
                state,
                system_at(system)?.is_overpopulated(colour),
            ),
            Action::Sacrifice { system, ship } => {
                legality::check_sacrifice(state, system_at(system)?.ships[me], ship)
            }
            _ => {
                let power = action.power().expect("colour actions have a power");
                let acting_slot =
                    legality::acting_slot(action).expect("colour actions act in a system");
                let here = system_at(acting_slot)?;
                legality::check_power(state, power, here.ships[me].is_empty(), || {
                    here.access(mover)
                })?;
                legality::check_colour_action(
                    action,
                    ColourActionFacts {
                        own: here.ships[me],
                        enemy: here.ships[1 - me],
                        bank: || self.bank(),
                        origin_sizes: here.size_mask(),
                        destination_sizes: || match action {
                            Action::Move { to, .. }
                                if (to as usize) < SLOT_COUNT && self.system(to).exists() =>
                            {
                                Some(self.system(to).size_mask())
                            }
                            _ => None,
                        },
                        has_free_slot: || self.free_slot().is_some(),
                    },
                )
            }
        }
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
    fn is_setup_pass(&self, rules: &Rules) -> bool {
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

    /// The canonical packed word of a slot (see [`System::word`]), straight
    /// from storage: what enumerators compare to tell identical systems.
    #[inline]
    pub(crate) fn slot_word(&self, slot: Slot) -> u64 {
        self.stored_word(slot)
    }

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
        let mut hash = self
            .hash
            .wrapping_sub(META_KEYS[self.meta as usize])
            .wrapping_add(META_KEYS[patch.meta as usize]);
        for &(slot, word) in patch.writes() {
            hash = hash
                .wrapping_sub(slot_hashes[slot as usize])
                .wrapping_add(word_hash(slot, word));
        }
        hash
    }

    /// The hash the position would have after `patch`.
    pub fn patched_hash(&self, patch: &Patch) -> u64 {
        let mut hash = self
            .hash
            .wrapping_sub(META_KEYS[self.meta as usize])
            .wrapping_add(META_KEYS[patch.meta as usize]);
        for &(slot, word) in patch.writes() {
            hash = hash
                .wrapping_sub(word_hash(slot, self.stored_word(slot)))
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
mod tests {
    use super::*;

    #[test]
    fn position_fits_in_128_bytes() {
        assert!(std::mem::size_of::<Position>() <= 128);
        assert_eq!(std::mem::size_of::<Position>(), 128);
    }

    #[test]
    fn a_setup_pass_hands_the_first_creation_over() {
        let piece = |text| Piece::parse(text).unwrap();
        let home = |star, second, ship| Action::Homeworld {
            star: piece(star),
            second_star: Some(piece(second)),
            ship: piece(ship),
        };
        let start = Position::start();
        for rules in [Rules::STANDARD, Rules::CLI] {
            assert_eq!(
                start.check(&rules, Action::Pass),
                Err(IllegalReason::SetupNeedsHomeworld)
            );
        }
        let rules = Rules::SDG;
        let mut position = start;
        position.try_apply(&rules, Action::Pass).unwrap();
        assert_eq!(position.end_turn(&rules), Ok(Outcome::Ongoing));
        assert_eq!(position.side_to_move(), Player::Second);
        assert_eq!(position.hash(), position.compute_hash());
        assert_ne!(position, start);
        // Ending a setup turn without the pass or a creation is still refused.
        assert_eq!(
            position.clone().end_turn(&rules),
            Err(IllegalReason::SetupIncomplete)
        );
        // Player 1 creates first, in their own slot; then player 0, who may
        // no longer pass; then player 1 moves first.
        position.try_apply(&rules, home("r1", "b3", "g3")).unwrap();
        position.end_turn(&rules).unwrap();
        assert!(position.system(1).exists() && !position.system(0).exists());
        assert_eq!(position.side_to_move(), Player::First);
        assert_eq!(
            position.check(&rules, Action::Pass),
            Err(IllegalReason::SetupPassAfterHomeworld)
        );
        position.try_apply(&rules, home("y2", "b1", "g3")).unwrap();
        assert_eq!(position.end_turn(&rules), Ok(Outcome::Ongoing));
        assert!(!position.in_setup());
        assert_eq!(position.side_to_move(), Player::Second);
        assert_eq!(position.hash(), position.compute_hash());
    }

    #[test]
    fn actions_pack_and_unpack() {
        let g1 = Piece::parse("g1").unwrap();
        let b3 = Piece::parse("b3").unwrap();
        let actions = [
            Action::Homeworld {
                star: g1,
                second_star: None,
                ship: b3,
            },
            Action::Homeworld {
                star: g1,
                second_star: Some(b3),
                ship: b3,
            },
            Action::Build {
                system: 17,
                piece: g1,
            },
            Action::Trade {
                system: 3,
                from: g1,
                to: b3,
            },
            Action::Move {
                from: 1,
                to: 16,
                ship: b3,
            },
            Action::Discover {
                from: 0,
                ship: g1,
                star: b3,
            },
            Action::Capture {
                system: 5,
                ship: b3,
            },
            Action::Sacrifice {
                system: 2,
                ship: g1,
            },
            Action::Catastrophe {
                system: 9,
                colour: Colour::Blue,
            },
            Action::Pass,
        ];
        for action in actions {
            assert_eq!(Action::unpack(action.pack()), Some(action));
        }
        assert_eq!(Action::unpack(0), None);
    }
}
