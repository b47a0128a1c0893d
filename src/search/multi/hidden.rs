//! Hidden alignments in Good versus Evil: what a player may know, and
//! alignments dealt consistently with it (determinization).
//!
//! A player knows their own alignment and, by the rules of seed 001, the
//! alignment of every player who was eliminated (they reveal it). A player
//! who eliminated someone also reveals theirs, but a position does not say
//! who eliminated whom, so the search does not use that. The rest are dealt
//! at random so that the number of Evil players is the rules' ⌊n/2⌋.

use rand::rngs::SmallRng;
use rand::Rng;

use crate::rules::multi::{MultiPosition, Seat, Seats, Victory};

/// The number of Evil players in an `players`-player game (seed 001:
/// one more Good than Evil when the count is odd).
pub fn evil_count(players: usize) -> usize {
    players / 2
}

/// `position` with its Evil seats replaced by a deal consistent with what
/// `seat` knows: its own alignment and those of the players who are out.
/// Other victory conditions come back unchanged.
pub fn deal(position: &MultiPosition, seat: Seat, random: &mut SmallRng) -> MultiPosition {
    let Victory::GoodVersusEvil { evil } = position.victory() else {
        return position.clone();
    };
    let players = position.players();
    let known = Seats(position.out().0 | 1 << seat);
    let mut dealt = evil.and(known);
    let mut unknown: Vec<Seat> = Seats::first(players).without(known).iter().collect();
    let wanted = evil_count(players).max(evil.len());
    while dealt.len() < wanted && !unknown.is_empty() {
        let pick = unknown.swap_remove(random.random_range(0..unknown.len()));
        dealt.insert(pick);
    }
    let mut parts = position.parts();
    parts.victory = Victory::GoodVersusEvil { evil: dealt };
    MultiPosition::from_parts(parts).unwrap_or_else(|_| position.clone())
}
