//! Command-line tools built on the engine and the protocol: the match
//! runner, position analysis, game annotation and terminal play.
//!
//! Tools write to a writer (and `play` reads from a reader) handed over by
//! `main.rs`, so they never touch stdin or stdout themselves and tests can
//! drive them in memory.

pub mod analyse;
pub mod bench;
pub mod client;
pub mod match_runner;
pub mod play;
pub mod stats;
