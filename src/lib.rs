//! Supernova: a Binary Homeworlds engine.
//!
//! The modules, from low level to high:
//! - [`files`]: reading the files a user names with a bound, below
//!   everything else.
//! - [`rules`]: pieces, the 128-byte position, actions, single-action and
//!   whole-turn generation, rule profiles, and the game history that judges
//!   every result (the one referee). Depends on nothing else here.
//! - [`notation`]: every text format (HWPN, homeworlds-cli state text, turn
//!   tokens, SuperDuperGames records) and the system names beside a position.
//! - [`record`]: game records and replay, judged by the rules core.
//! - [`search`]: the engine: parallel MCTS with exact win-in-1 and safety
//!   checks, the greedy and random players. Never prints.
//! - [`engine`]: the game (positions and actions), options and searcher
//!   behind a text-free API; searches run on a background thread. The
//!   multi-player game has its own engine beside it ([`engine::multi`]):
//!   its positions and search are its own.
//! - [`protocol`]: the text protocol (protocol.md) over any reader and writer.
//! - [`tools`]: the match runner, self-play, analysis, annotation and
//!   terminal play.
#![warn(missing_docs)]

pub mod engine;
pub mod files;
pub mod notation;
pub mod protocol;
pub mod record;
pub mod rules;
pub mod search;
pub mod tools;
