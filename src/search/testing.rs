//! Test positions written without the notation layer, so that the search's
//! unit tests depend on the rules core alone: each system is `(stars,
//! player 0's ships, player 1's ships)` with pieces as in HWPN (`r1b3`);
//! the first two systems are the homes.

use crate::rules::{Piece, PieceSet, Player, Position, System, TurnState};

/// A multiset of pieces written `r1b3` (empty text: none).
pub(crate) fn pieces(text: &str) -> PieceSet {
    let mut set = PieceSet::EMPTY;
    for pair in text.as_bytes().chunks(2) {
        let piece = std::str::from_utf8(pair).ok().and_then(Piece::parse);
        set.add(piece.unwrap_or_else(|| panic!("bad piece in '{text}'")));
    }
    set
}

/// A position after setup, at the start of `side`'s turn: the two homes,
/// then the other systems.
pub(crate) fn position(systems: &[(&str, &str, &str)], side: usize) -> Position {
    let system = |&(stars, first, second): &(&str, &str, &str)| System {
        stars: pieces(stars),
        ships: [pieces(first), pieces(second)],
    };
    let others: Vec<System> = systems[2..].iter().map(system).collect();
    Position::from_parts(
        [Some(system(&systems[0])), Some(system(&systems[1]))],
        [true, true],
        &others,
        Player::from_index(side).unwrap(),
        TurnState::Start,
    )
    .unwrap_or_else(|error| panic!("{systems:?}: {error}"))
}
