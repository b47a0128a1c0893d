//! Text formats: positions (HWPN and homeworlds-cli state text), turns (the
//! protocol token, a readable form, SDG lines), turns played from text with
//! the names they give (`play`), and SuperDuperGames records.
//!
//! Everything textual lives here, above the rules core: the core knows slots,
//! the notations know names. [`names::Board`] pairs a position with its
//! system names and keeps them in step as actions are applied.

pub mod cli;
pub mod error;
pub mod hwpn;
pub mod multi;
pub mod names;
pub mod play;
pub mod sdg;
pub mod turn;

pub use error::ParseError;
pub use names::Board;
