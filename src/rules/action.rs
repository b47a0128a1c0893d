//! Actions and the reasons an action is illegal.
//!
//! An [`Action`] is one step of a turn, as the single-action generator
//! produces it and a [`Turn`](super::Turn) lists them. It names systems by
//! slot, never by name: names belong to the notation layer. It packs into
//! a `u32` ([`Action::pack`]) so that a search tree's edge holds its action
//! in one word. [`IllegalReason`] names the rule behind each refusal, so
//! that an error message can say exactly what is wrong; both position types
//! and [`super::legality`] share it.

use std::fmt;

use super::piece::{Colour, Piece};
use super::position::Slot;

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
    /// sacrifice action. Under [`Rules::setup_pass`](super::Rules::setup_pass) it may also be a whole
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
    /// [`Rules::setup_pass`](super::Rules::setup_pass)).
    SetupNeedsHomeworld,
    /// Under [`Rules::setup_pass`](super::Rules::setup_pass), a setup turn may be passed only while
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
