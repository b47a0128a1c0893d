//! The rules core: pieces, positions, actions, turn generation, and the
//! game history that judges repetition and the turn limit.
//!
//! It depends on nothing else in the crate. Search, notation and protocol all
//! build on it, never the other way round. Everything here works on slots;
//! names belong to the notation layer.

pub mod action;
pub mod generate;
pub mod history;
pub mod legality;
pub(crate) mod memory;
pub mod multi;
pub mod piece;
pub mod position;
pub mod profile;
pub mod timewarp;
pub mod turns;

pub use generate::{ActionList, MAX_ACTIONS};
pub use history::{
    parse_repetition, repetition_text, EndReason, GameResult, GameStatus, History, MidTurn,
    PlayError,
};
pub use piece::{Colour, Piece, PieceSet, Player};
pub use position::{
    Action, IllegalReason, Outcome, Patch, Position, SetupError, Slot, System, TurnState,
    HOME_SLOTS, SLOT_COUNT,
};
pub use profile::{CatastropheTiming, Repetition, Rules, SelfElimination, UnknownRules};
pub use timewarp::{Timewarp, TimewarpError, MAX_BONUS_TURNS};
pub use turns::{HashSet64, Turn, TurnEnumerator, TurnOrder};
