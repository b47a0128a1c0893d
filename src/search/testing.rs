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

/// The systems of a middle game (cli rules, from a real engine game) where
/// player 0 has two large ships ready at Fritz beside player 1's home:
/// `moved_in` says whether they have just moved in (player 1 to move).
fn invasion_systems(moved_in: bool) -> Vec<(&'static str, &'static str, &'static str)> {
    let (home, fritz) = if moved_in {
        ("r3b3", "r1b1b2")
    } else {
        ("", "r1r3y2b1b2b3")
    };
    vec![
        ("y2b1", "r2g1g3", ""),
        ("g3b1", home, "r3y1"),
        ("b3", "", "r2y3"),
        ("g1", "", "r1y3"),
        ("g1", "", "y1"),
        ("g2", "", "y1"),
        ("g2", fritz, ""),
        ("g2", "r3", ""),
        ("g3", "r2y3", ""),
        ("y2", "r1", ""),
    ]
}

/// Player 0 has just moved R3 and B3 into player 1's home: player 1's R2
/// elsewhere, sacrificed, captures both with the R3 at home. Player 1 to
/// move.
pub(crate) fn walked_into_a_red_sacrifice() -> Position {
    position(&invasion_systems(true), 1)
}

/// The same game before the move in, with player 1 to move: no sacrifice
/// of player 1's gains anything.
pub(crate) fn before_the_move_in() -> Position {
    position(&invasion_systems(false), 1)
}
