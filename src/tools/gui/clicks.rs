//! The clicks on a drawn board that choose an action, one implementation
//! for both pages: the two-player page (`game.rs`) and the multi-player one
//! (`multi/view.rs`) draw the same kinds of things (ships marked with
//! their owner, systems, the bank's pieces, the bank's background,
//! catastrophe badges) under the same keys, so a person builds a turn by
//! the same clicks on either. What differs between the two is only how a
//! board names its systems, who moves, and whose ship a capture takes,
//! which the caller says.

use crate::rules::{Action, Slot};

/// The sequences of clicks that choose `action` on the page, for the
/// player `mover` (their seat number), a capture taking a ship of `owner`
/// and `name` naming the systems. Keys name what is clicked:
/// `ship:<system>:<owner>:<piece>`, `sys:<system>`, `bank:<piece>`,
/// `bankzone` (the bank's background, where a sacrificed ship goes),
/// `cat:<system>:<colour letter>` (a catastrophe badge), `none` (a
/// one-star home) and `pass`. Build: the bank piece, then the system. Trade
/// and discovery: the ship, then the bank piece. Move: the ship, then the
/// system. Capture: the ship taken (its owner is in the key, so every
/// fleet is told apart). Sacrifice: the ship, then the bank. Homeworld:
/// the two stars in either order, then the ship.
pub fn click_paths(
    action: Action,
    mover: usize,
    owner: usize,
    name: impl Fn(Slot) -> String,
) -> Vec<Vec<String>> {
    let ship = |slot, owner: usize, piece| format!("ship:{}:{owner}:{piece}", name(slot));
    let bank = |piece| format!("bank:{piece}");
    let path = match action {
        Action::Homeworld {
            star,
            second_star,
            ship,
        } => {
            let second = second_star.map_or_else(|| "none".to_string(), bank);
            let mut paths = vec![vec![bank(star), second.clone(), bank(ship)]];
            if second_star.is_some() && second_star != Some(star) {
                paths.push(vec![second, bank(star), bank(ship)]);
            }
            return paths;
        }
        Action::Build { system, piece } => vec![bank(piece), format!("sys:{}", name(system))],
        Action::Trade { system, from, to } => vec![ship(system, mover, from), bank(to)],
        Action::Move {
            from,
            to,
            ship: piece,
        } => vec![ship(from, mover, piece), format!("sys:{}", name(to))],
        Action::Discover {
            from,
            ship: piece,
            star,
        } => vec![ship(from, mover, piece), bank(star)],
        Action::Capture {
            system,
            ship: piece,
        } => vec![ship(system, owner, piece)],
        Action::Sacrifice {
            system,
            ship: piece,
        } => vec![ship(system, mover, piece), "bankzone".to_string()],
        Action::Catastrophe { system, colour } => {
            vec![format!("cat:{}:{}", name(system), colour.letter())]
        }
        Action::Pass => vec!["pass".to_string()],
    };
    vec![path]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Colour, Piece};

    fn piece(text: &str) -> Piece {
        Piece::parse(text).unwrap()
    }

    #[test]
    fn each_action_has_the_clicks_of_what_it_names() {
        let name = |slot: Slot| format!("S{slot}");
        let home = Action::Homeworld {
            star: piece("r1"),
            second_star: Some(piece("b2")),
            ship: piece("g3"),
        };
        assert_eq!(
            click_paths(home, 2, 2, name),
            [
                ["bank:r1", "bank:b2", "bank:g3"],
                ["bank:b2", "bank:r1", "bank:g3"]
            ]
        );
        let one_star = Action::Homeworld {
            star: piece("r1"),
            second_star: None,
            ship: piece("g3"),
        };
        assert_eq!(
            click_paths(one_star, 0, 0, name),
            [["bank:r1", "none", "bank:g3"]]
        );
        let capture = Action::Capture {
            system: 4,
            ship: piece("y2"),
        };
        assert_eq!(click_paths(capture, 0, 3, name), [["ship:S4:3:y2"]]);
        let sacrifice = Action::Sacrifice {
            system: 1,
            ship: piece("y2"),
        };
        assert_eq!(
            click_paths(sacrifice, 5, 0, name),
            [["ship:S1:5:y2", "bankzone"]]
        );
        let catastrophe = Action::Catastrophe {
            system: 1,
            colour: Colour::Blue,
        };
        assert_eq!(click_paths(catastrophe, 0, 1, name), [["cat:S1:b"]]);
    }
}
