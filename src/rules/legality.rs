//! The legality of each action, written once for every position type.
//!
//! The two-player [`super::Position`] packs its fleets into 2-bit counts, and
//! the multi-player [`super::multi::MultiPosition`] needs wider ones (up to
//! seven copies of a type with six players). Both ask the same questions of
//! an action: may the turn take a step of this kind now, does the mover have
//! access to the power, does the bank hold the piece, are the systems
//! connected. Those questions are answered here, over the [`PieceCounts`]
//! trait, so that each rule has one implementation, and the dispatch on an
//! action's kind once play has begun is one function too
//! ([`check_in_play`], over the [`InPlay`] view each position gives of
//! itself). The functions are small and generic, so each position type
//! gets its own inlined copy and the two-player move checker pays nothing
//! for the sharing: `supernova bench`'s signature and speed are the same as
//! with the checks written out in each position.
//!
//! What stays apart is what differs in the rules, not only in the layout:
//! who may still create a homeworld and when a setup pass is allowed (the
//! two-player position keeps a setup flag, the multi-player one a set of
//! seats that have created), and, for a capture, whose ships are the
//! target (one opponent, or the seat the action names).

use super::piece::{Colour, Piece, PieceSet};
use super::position::{Action, IllegalReason, TurnState};
use super::profile::{CatastropheTiming, Rules};

/// A multiset of pieces that the legality checks can read: a fleet, the
/// stars of a system, or the bank.
pub trait PieceCounts: Copy {
    /// How many copies of `piece` it holds.
    fn count(self, piece: Piece) -> u32;
    /// Whether it holds any piece of `colour`.
    fn has_colour(self, colour: Colour) -> bool;
    /// The largest size it holds, 0 when empty (capture needs it, §6.4).
    fn largest_size(self) -> u8;
    /// The smallest piece of `colour` it holds: what a build takes (§6.1).
    fn smallest_of_colour(self, colour: Colour) -> Option<Piece>;
    /// Whether it holds nothing.
    fn is_empty(self) -> bool;
}

impl PieceCounts for PieceSet {
    #[inline]
    fn count(self, piece: Piece) -> u32 {
        PieceSet::count(self, piece) as u32
    }
    #[inline]
    fn has_colour(self, colour: Colour) -> bool {
        PieceSet::has_colour(self, colour)
    }
    #[inline]
    fn largest_size(self) -> u8 {
        PieceSet::largest_size(self)
    }
    #[inline]
    fn smallest_of_colour(self, colour: Colour) -> Option<Piece> {
        PieceSet::smallest_of_colour(self, colour)
    }
    #[inline]
    fn is_empty(self) -> bool {
        PieceSet::is_empty(self)
    }
}

/// Whether a homeworld creation is legal apart from whose turn it is: the
/// profile's shape rules (R3.2, R3.3, R3.7) and the bank (R3.5).
///
/// # Errors
/// The rule the creation breaks.
#[inline]
pub fn check_homeworld<B: PieceCounts>(
    rules: &Rules,
    star: Piece,
    second_star: Option<Piece>,
    ship: Piece,
    bank: B,
) -> Result<(), IllegalReason> {
    if second_star.is_none() && !rules.one_star_home {
        return Err(IllegalReason::OneStarHome);
    }
    if ship.size() != 3 && !rules.any_ship_size {
        return Err(IllegalReason::StartingShipNotLarge);
    }
    let wanted = [Some(star), second_star, Some(ship)];
    let needed = |piece: Piece| wanted.iter().filter(|&&w| w == Some(piece)).count() as u32;
    if wanted
        .iter()
        .flatten()
        .any(|&piece| needed(piece) > bank.count(piece))
    {
        return Err(IllegalReason::HomeworldPiecesUnavailable);
    }
    Ok(())
}

/// Whether the turn may take a pass now (R10.4): at its start, or as an
/// unused sacrifice action.
///
/// # Errors
/// [`IllegalReason::TurnCoreUsed`] once the turn's core is done.
#[inline]
pub fn check_pass(state: TurnState) -> Result<(), IllegalReason> {
    match state {
        TurnState::Start | TurnState::Sacrifice { .. } => Ok(()),
        TurnState::Done => Err(IllegalReason::TurnCoreUsed),
    }
}

/// Whether the catastrophe timing rule allows a catastrophe now (R8.6), and
/// whether the system is overpopulated in the colour (R8.1).
///
/// # Errors
/// The timing rule or the missing overpopulation.
#[inline]
pub fn check_catastrophe(
    rules: &Rules,
    state: TurnState,
    overpopulated: bool,
) -> Result<(), IllegalReason> {
    let allowed = match (rules.catastrophe_timing, state) {
        (CatastropheTiming::Anytime | CatastropheTiming::Edges, _) => true,
        (CatastropheTiming::End, TurnState::Start) => false,
        (CatastropheTiming::End, _) => true,
    };
    if !allowed {
        return Err(IllegalReason::CatastropheTiming);
    }
    if !overpopulated {
        return Err(IllegalReason::NotOverpopulated);
    }
    Ok(())
}

/// Whether the mover may sacrifice `ship` from `own` (their fleet in the
/// system) now: only as the turn's core (§7.1).
///
/// # Errors
/// The core is used, or the ship is not the mover's.
#[inline]
pub fn check_sacrifice<F: PieceCounts>(
    state: TurnState,
    own: F,
    ship: Piece,
) -> Result<(), IllegalReason> {
    if state != TurnState::Start {
        return Err(IllegalReason::TurnCoreUsed);
    }
    if own.count(ship) == 0 {
        return Err(IllegalReason::NoSuchShip);
    }
    Ok(())
}

/// The system a colour action acts in: where its ship is, or where it builds.
#[inline]
pub fn acting_slot(action: Action) -> Option<u8> {
    match action {
        Action::Build { system, .. }
        | Action::Trade { system, .. }
        | Action::Capture { system, .. } => Some(system),
        Action::Move { from, .. } | Action::Discover { from, .. } => Some(from),
        _ => None,
    }
}

/// Whether a colour action's power is available (R5.2, R5.3): the mover has
/// a ship in the acting system, and either the turn starts and `access`
/// (a bit per colour, R5.1; worked out only at the start of a turn) has the
/// power, or a sacrifice of that colour has actions left.
///
/// # Errors
/// No own ship there, no access, the wrong sacrifice colour, or the core used.
#[inline]
pub fn check_power(
    state: TurnState,
    power: Colour,
    own_is_empty: bool,
    access: impl FnOnce() -> u8,
) -> Result<(), IllegalReason> {
    if own_is_empty {
        return Err(IllegalReason::NoOwnShipThere);
    }
    match state {
        TurnState::Start => {
            if access() & (1 << power.index()) == 0 {
                return Err(IllegalReason::NoAccess);
            }
        }
        TurnState::Sacrifice { colour, .. } => {
            if colour != power {
                return Err(IllegalReason::WrongSacrificeColour);
            }
        }
        TurnState::Done => return Err(IllegalReason::TurnCoreUsed),
    }
    Ok(())
}

/// What a colour action's own rules (§6.1–§6.4) look at, besides the action.
pub struct ColourActionFacts<F, B, K, D, S>
where
    F: PieceCounts,
    B: PieceCounts,
    K: FnOnce() -> B,
    D: FnOnce() -> Option<u8>,
    S: FnOnce() -> bool,
{
    /// The mover's ships in the acting system.
    pub own: F,
    /// The ships that can be captured: the target owner's fleet there.
    pub enemy: F,
    /// The bank. Called only for builds, trades and discoveries: adding
    /// up every system's pieces is a good part of checking a move or a
    /// capture, which the threat checks replay by the million.
    pub bank: K,
    /// The acting system's star sizes (bit `s` for size `s`).
    pub origin_sizes: u8,
    /// For a move: the destination's star sizes, `None` when no system is
    /// there. Called only for moves.
    pub destination_sizes: D,
    /// For a discovery: whether a slot is free for the new system. Called
    /// only for discoveries.
    pub has_free_slot: S,
}

/// Whether a build, trade, move, discovery or capture is legal, power
/// aside (see [`check_power`]): the rules of §6 on the facts given.
///
/// # Errors
/// The rule the action breaks.
#[inline]
pub fn check_colour_action<F, B, K, D, S>(
    action: Action,
    facts: ColourActionFacts<F, B, K, D, S>,
) -> Result<(), IllegalReason>
where
    F: PieceCounts,
    B: PieceCounts,
    K: FnOnce() -> B,
    D: FnOnce() -> Option<u8>,
    S: FnOnce() -> bool,
{
    let own = facts.own;
    let bank = facts.bank;
    match action {
        Action::Build { piece, .. } => {
            if !own.has_colour(piece.colour()) {
                return Err(IllegalReason::NoShipOfColour);
            }
            match bank().smallest_of_colour(piece.colour()) {
                None => Err(IllegalReason::BankEmptyOfColour),
                Some(smallest) if smallest != piece => Err(IllegalReason::BuildSizeNotSmallest),
                Some(_) => Ok(()),
            }
        }
        Action::Trade { from, to, .. } => {
            if own.count(from) == 0 {
                return Err(IllegalReason::NoSuchShip);
            }
            if from.colour() == to.colour() {
                return Err(IllegalReason::TradeSameColour);
            }
            if from.size() != to.size() {
                return Err(IllegalReason::TradeSizeChanges);
            }
            if bank().count(to) == 0 {
                return Err(IllegalReason::PieceNotInBank);
            }
            Ok(())
        }
        Action::Move { from, to, ship } => {
            if own.count(ship) == 0 {
                return Err(IllegalReason::NoSuchShip);
            }
            if from == to {
                return Err(IllegalReason::MoveToSameSystem);
            }
            let Some(destination) = (facts.destination_sizes)() else {
                return Err(IllegalReason::NoSuchSystem);
            };
            if facts.origin_sizes & destination != 0 {
                return Err(IllegalReason::NotConnected);
            }
            Ok(())
        }
        Action::Discover { ship, star, .. } => {
            if own.count(ship) == 0 {
                return Err(IllegalReason::NoSuchShip);
            }
            if bank().count(star) == 0 {
                return Err(IllegalReason::PieceNotInBank);
            }
            if facts.origin_sizes & (1 << star.size()) != 0 {
                return Err(IllegalReason::DiscoverySizeShared);
            }
            if !(facts.has_free_slot)() {
                return Err(IllegalReason::NoFreeSlot);
            }
            Ok(())
        }
        Action::Capture { ship, .. } => {
            if facts.enemy.count(ship) == 0 {
                return Err(IllegalReason::NoEnemyShip);
            }
            if own.largest_size() < ship.size() {
                return Err(IllegalReason::TargetTooLarge);
            }
            Ok(())
        }
        _ => unreachable!("only colour actions are checked here"),
    }
}

/// Whether a system with this content fades (rules.md R9.1–R9.3): without
/// a star it is gone with its ships; without ships a non-home system is
/// gone, and a home too under `home_vanishes_when_empty`.
#[inline]
pub fn fades(rules: &Rules, is_home: bool, has_star: bool, has_ships: bool) -> bool {
    !has_star || !has_ships && (!is_home || rules.home_vanishes_when_empty)
}

/// The turn state after a pass (R10.4): one unused sacrifice action fewer,
/// or the turn's core done.
#[inline]
pub fn state_after_pass(state: TurnState) -> TurnState {
    match state {
        TurnState::Sacrifice { colour, remaining } => TurnState::Sacrifice {
            colour,
            remaining: remaining.saturating_sub(1),
        },
        _ => TurnState::Done,
    }
}

/// The turn state after a colour action: one sacrifice action fewer, or the
/// basic action done.
#[inline]
pub fn state_after_colour_action(state: TurnState) -> TurnState {
    state_after_pass(state)
}

/// The turn state after a catastrophe (R8.6): unchanged under `anytime`
/// and at the start of a turn; otherwise only more catastrophes may follow.
#[inline]
pub fn state_after_catastrophe(rules: &Rules, state: TurnState) -> TurnState {
    match (rules.catastrophe_timing, state) {
        (CatastropheTiming::Anytime, _) | (_, TurnState::Start) => state,
        _ => TurnState::Done,
    }
}

/// A sacrifice with no actions left is a finished core.
#[inline]
pub fn settle_state(state: TurnState) -> TurnState {
    match state {
        TurnState::Sacrifice { remaining: 0, .. } => TurnState::Done,
        other => other,
    }
}

/// What the check of an action in play (after setup, not a creation) reads
/// of a position. Why a trait: the two-player and the multi-player position
/// store their systems differently but ask the same questions in the same
/// order, so [`check_in_play`] dispatches on the action's kind once for
/// both. Each position implements it on a small view that knows the mover
/// (and, for a capture with several opponents, whose ships are targeted).
/// The methods are small and inlined, so the two-player checker, which the
/// threat checks replay by the million, compiles to what it would be
/// written out by hand.
pub trait InPlay {
    /// A system as the position decodes it.
    type System: Copy;
    /// One player's ships in a system.
    type Fleet: PieceCounts;
    /// The pieces in the bank.
    type Bank: PieceCounts;
    /// The system in `slot`, `None` where there is none (or no such slot).
    fn system(&self, slot: u8) -> Option<Self::System>;
    /// The mover's ships in `system`.
    fn own(&self, system: &Self::System) -> Self::Fleet;
    /// The ships a capture in `system` may take: the targeted owner's.
    fn enemy(&self, system: &Self::System) -> Self::Fleet;
    /// Whether `colour` is overpopulated in `system` (R8.1).
    fn is_overpopulated(&self, system: &Self::System, colour: Colour) -> bool;
    /// The colours the mover may use in `system` (R5.1), a bit per colour.
    fn access(&self, system: &Self::System) -> u8;
    /// The star sizes of `system`, bit `s` for size `s`.
    fn star_sizes(&self, system: &Self::System) -> u8;
    /// The bank. Called only where an action takes a piece from it.
    fn bank(&self) -> Self::Bank;
    /// Whether a slot is free for a new system. Called only for discoveries.
    fn has_free_slot(&self) -> bool;
}

/// Whether an action is legal once setup is over and the turn's creation,
/// if any, is past: a pass, a catastrophe, a sacrifice or a colour action,
/// each by its rules above, on the facts `board` gives.
///
/// # Errors
/// The rule the action breaks.
///
/// # Panics
/// On an [`Action::Homeworld`], which the callers check before.
#[inline]
pub fn check_in_play<P: InPlay>(
    board: &P,
    rules: &Rules,
    state: TurnState,
    action: Action,
) -> Result<(), IllegalReason> {
    let system_at = |slot: u8| board.system(slot).ok_or(IllegalReason::NoSuchSystem);
    match action {
        Action::Homeworld { .. } => unreachable!("creations are checked before play"),
        Action::Pass => check_pass(state),
        Action::Catastrophe { system, colour } => check_catastrophe(
            rules,
            state,
            board.is_overpopulated(&system_at(system)?, colour),
        ),
        Action::Sacrifice { system, ship } => {
            check_sacrifice(state, board.own(&system_at(system)?), ship)
        }
        _ => {
            let power = action.power().expect("colour actions have a power");
            let acting = acting_slot(action).expect("colour actions act in a system");
            let here = system_at(acting)?;
            let own = board.own(&here);
            check_power(state, power, own.is_empty(), || board.access(&here))?;
            check_colour_action(
                action,
                ColourActionFacts {
                    own,
                    enemy: board.enemy(&here),
                    bank: || board.bank(),
                    origin_sizes: board.star_sizes(&here),
                    destination_sizes: || match action {
                        Action::Move { to, .. } => {
                            board.system(to).map(|there| board.star_sizes(&there))
                        }
                        _ => None,
                    },
                    has_free_slot: || board.has_free_slot(),
                },
            )
        }
    }
}
