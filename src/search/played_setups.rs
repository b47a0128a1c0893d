//! The homeworld setups people played on SuperDuperGames, for the setup book
//! ([`super::book_score`]): the engine opens the way people did rather than
//! by a guessed formula, which can pick homes without yellow or blue (a
//! home that can never move or trade).
//!
//! The table is derived data, not hand-written: `supernova openings --setups
//! ../shared/sdg/*.raw` prints it (src/tools/openings.rs), from both setup
//! turns of every two-player record whose setups are legal under the
//! `standard` rules, leaving out setups without yellow or blue. The test
//! `tests/openings.rs` checks that it stays equal to what the records give.

use crate::rules::{Action, Piece};

/// One homeworld setup and how people fared with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayedSetup {
    /// The two stars, smaller piece first in canonical order (r<y<g<b, then size).
    pub stars: [Piece; 2],
    /// The starting ship.
    pub ship: Piece,
    /// How many setup turns created this home (first or second player).
    pub played: u32,
    /// In how many of those games the player who created it won, by the
    /// record's `Winner:` line (which counts resignations and time-outs).
    pub won: u32,
}

impl PlayedSetup {
    /// The setup as a homeworld creation.
    pub fn action(&self) -> Action {
        Action::Homeworld {
            star: self.stars[0],
            second_star: Some(self.stars[1]),
            ship: self.ship,
        }
    }

    /// Whether `action` creates this home (in either star order).
    pub fn matches(&self, action: Action) -> bool {
        let Action::Homeworld {
            star,
            second_star: Some(second),
            ship,
        } = action
        else {
            return false;
        };
        ship == self.ship && [star.min(second), star.max(second)] == self.stars
    }
}

/// A piece from its two-character code, at compile time (a bad code does
/// not compile).
const fn piece(code: &[u8; 2]) -> Piece {
    let colour = match code[0] {
        b'r' => 0,
        b'y' => 1,
        b'g' => 2,
        b'b' => 3,
        _ => panic!("a colour letter: r, y, g or b"),
    };
    let size = match code[1] {
        b'1' => 0,
        b'2' => 1,
        b'3' => 2,
        _ => panic!("a size: 1, 2 or 3"),
    };
    Piece::ALL[colour * 3 + size]
}

/// A table row: stars, ship, times played, times won.
const fn setup(
    star: &[u8; 2],
    second: &[u8; 2],
    ship: &[u8; 2],
    played: u32,
    won: u32,
) -> PlayedSetup {
    PlayedSetup {
        stars: [piece(star), piece(second)],
        ship: piece(ship),
        played,
        won,
    }
}

/// The setups people played, most played first (then most won, then by
/// text). Printed by `supernova openings --setups ../shared/sdg/*.raw`.
pub const PLAYED_SETUPS: &[PlayedSetup] = &[
    // supernova openings --setups ../shared/sdg/*.raw: 71 setups of 823 games (2005.9.2 to 2020.8.22)
    setup(b"y1", b"b2", b"g3", 187, 91),
    setup(b"r1", b"b2", b"g3", 155, 97),
    setup(b"r1", b"b3", b"g3", 117, 84),
    setup(b"y2", b"b1", b"g3", 116, 60),
    setup(b"y3", b"b1", b"g3", 102, 49),
    setup(b"y1", b"b3", b"g3", 92, 44),
    setup(b"y2", b"b3", b"g3", 81, 29),
    setup(b"y3", b"b2", b"g3", 75, 33),
    setup(b"r2", b"b1", b"g3", 73, 41),
    setup(b"r3", b"b1", b"g3", 71, 46),
    setup(b"r2", b"b3", b"g3", 64, 35),
    setup(b"r3", b"b2", b"g3", 60, 32),
    setup(b"g3", b"b2", b"y3", 47, 14),
    setup(b"g1", b"b2", b"y3", 38, 14),
    setup(b"g2", b"b1", b"y3", 37, 17),
    setup(b"g2", b"b3", b"y3", 36, 14),
    setup(b"g3", b"b1", b"y3", 30, 11),
    setup(b"y1", b"g2", b"b3", 22, 8),
    setup(b"g1", b"b3", b"y3", 19, 8),
    setup(b"y2", b"g3", b"b3", 18, 6),
    setup(b"y1", b"g3", b"b3", 15, 6),
    setup(b"g3", b"b1", b"b3", 14, 6),
    setup(b"y2", b"g1", b"b3", 12, 1),
    setup(b"g2", b"b1", b"r3", 10, 6),
    setup(b"g3", b"b2", b"r3", 10, 2),
    setup(b"g1", b"b3", b"r3", 9, 4),
    setup(b"r1", b"g2", b"b3", 9, 4),
    setup(b"y3", b"g1", b"b3", 9, 3),
    setup(b"r1", b"g3", b"b3", 7, 6),
    setup(b"g1", b"b2", b"r3", 7, 4),
    setup(b"r3", b"g2", b"b3", 7, 4),
    setup(b"g2", b"b1", b"b3", 6, 5),
    setup(b"r2", b"b2", b"g3", 6, 5),
    setup(b"r1", b"y3", b"g3", 6, 2),
    setup(b"y3", b"g2", b"b3", 6, 1),
    setup(b"g3", b"b3", b"y3", 5, 4),
    setup(b"r2", b"g3", b"b3", 5, 2),
    setup(b"g3", b"b1", b"r3", 5, 0),
    setup(b"r3", b"g1", b"b3", 4, 3),
    setup(b"y1", b"b1", b"g3", 4, 2),
    setup(b"g1", b"b2", b"g3", 3, 2),
    setup(b"y2", b"b2", b"g3", 3, 2),
    setup(b"r2", b"y3", b"g3", 3, 1),
    setup(b"y1", b"g2", b"y3", 3, 1),
    setup(b"g1", b"b1", b"y3", 3, 0),
    setup(b"g2", b"b3", b"r3", 3, 0),
    setup(b"g1", b"b3", b"g3", 2, 2),
    setup(b"r1", b"y2", b"g3", 2, 1),
    setup(b"r3", b"y2", b"g3", 2, 1),
    setup(b"y2", b"g3", b"r3", 2, 1),
    setup(b"y3", b"g3", b"r3", 2, 1),
    setup(b"y3", b"b3", b"g3", 2, 0),
    setup(b"g1", b"b1", b"b3", 1, 1),
    setup(b"r1", b"b1", b"g3", 1, 1),
    setup(b"r3", b"b3", b"g3", 1, 1),
    setup(b"y1", b"g3", b"y3", 1, 1),
    setup(b"y2", b"g1", b"r3", 1, 1),
    setup(b"y2", b"g1", b"y3", 1, 1),
    setup(b"y2", b"g2", b"r3", 1, 1),
    setup(b"y3", b"g2", b"r3", 1, 1),
    setup(b"g1", b"b2", b"b3", 1, 0),
    setup(b"g2", b"b2", b"r3", 1, 0),
    setup(b"g2", b"b3", b"g3", 1, 0),
    setup(b"r1", b"g3", b"y3", 1, 0),
    setup(b"r1", b"y2", b"b3", 1, 0),
    setup(b"y1", b"b2", b"r3", 1, 0),
    setup(b"y1", b"g1", b"b3", 1, 0),
    setup(b"y1", b"g1", b"r3", 1, 0),
    setup(b"y1", b"g2", b"r3", 1, 0),
    setup(b"y1", b"g3", b"r3", 1, 0),
    setup(b"y3", b"g1", b"r3", 1, 0),
];
