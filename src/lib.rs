//! Supernova: a Binary Homeworlds engine.
//!
//! The modules, from low level to high; each layer uses only those before
//! it (`rules -> notation -> record -> search -> engine -> protocol ->
//! tools, main`):
//! - [`files`]: reading the files a user names with a bound, below
//!   everything else.
//! - [`rules`]: the game: pieces, rule profiles, the 128-byte position,
//!   actions and their legality, single-action generation, distinct
//!   whole-turn enumeration, the game's history that judges every result
//!   (repetitions, turn limit: the one referee), and the multi-player
//!   position. Depends on nothing else here.
//! - [`notation`]: every text format: HWPN, homeworlds-cli state text, turn
//!   tokens, SDG turn lines, the system names beside a position, and the
//!   multi-player notation.
//! - [`record`]: SuperDuperGames records (two to six players) and Board
//!   Game Arena logs: reading, replaying and walking them turn by turn,
//!   judged by the rules core.
//! - [`search`]: the parallel MCTS and its tree, the leaf evaluations (hand
//!   and network), the exact checks (win-in-1 solver, two-turn threats),
//!   time management, the greedy and random players, the bench, and the
//!   max-n search for several players. Never prints.
//! - [`engine`]: the game (positions and actions), options, strength limits
//!   and searcher behind a text-free API; searches run on a background
//!   thread. The multi-player game has its own engine beside it
//!   ([`engine::multi`]), which the protocol reaches only through it.
//! - [`protocol`]: the text protocol (protocol.md) over any reader and
//!   writer, both halves: the engine's command loop and the controller's
//!   typed commands and reply parsers.
//! - [`tools`]: what the commands do: their arguments and runs
//!   (`tools::cli`), the match runner, multi-player matches and play,
//!   analysis and annotation, openings, self-play and training, statistics
//!   (Elo, LOS, SPRT), and `tools::gui`, the web GUI with its own bounded
//!   HTTP/1.1 server, the game it referees, the engines it drives and the
//!   embedded page.
//!
//! Only the binary's `main` and the protocol own stdin and stdout (and
//! `main` is the only place errors become exit codes); the search never
//! prints, and the tools write to the writer they are given.

#![warn(missing_docs)]

pub mod engine;
pub mod files;
pub mod notation;
pub mod protocol;
pub mod record;
pub mod rules;
pub mod search;
pub mod tools;
