//! homeworlds-cli state text (rules.md §13.2), read only.
//!
//! ```text
//! Sam (0, g1b3) y1b2- | Dave (1, r2) -y3 | Delos (b2) r1-r1
//! ```
//! One system per line, or separated by ` | `: an optional name, the stars
//! in parentheses (with the owner first for a homeworld), then player 0's
//! ships, `-`, player 1's ships. Whitespace is ignored and `#` starts a
//! comment. The text has no side to move, so the caller supplies it. A home
//! that is missing while the other exists is taken as destroyed.

use super::error::ParseError;
use super::hwpn::parse_pieces;
use super::names::{Board, Names};
use crate::rules::{Player, Position, Slot, System, TurnState, HOME_SLOTS};

/// Parses CLI state text into a board, with `side_to_move` to move.
///
/// # Errors
/// Names the offending line and what was expected.
pub fn parse(text: &str, side_to_move: Player) -> Result<Board, ParseError> {
    let mut homes: [Option<System>; 2] = [None, None];
    let mut home_names: [Option<String>; 2] = [None, None];
    let mut others = Vec::new();
    let mut other_names = Vec::new();
    let mut line_number = 0;
    for (index, raw_line) in text.lines().enumerate() {
        let without_comment = raw_line.split('#').next().unwrap_or("");
        for part in without_comment.split('|') {
            line_number = index + 1;
            let compact: String = part.chars().filter(|c| !c.is_whitespace()).collect();
            if compact.is_empty() {
                continue;
            }
            let (owner, name, system) =
                parse_system(&compact).map_err(|error| error.at_line(line_number))?;
            match owner {
                Some(player) => {
                    let index = player.index();
                    if homes[index].is_some() {
                        return Err(ParseError::new(
                            part.trim(),
                            format!("expected only one homeworld for player {index}"),
                        )
                        .at_line(line_number));
                    }
                    homes[index] = Some(system);
                    home_names[index] = name;
                }
                None => {
                    others.push(system);
                    other_names.push(name);
                }
            }
        }
    }
    if homes.iter().all(Option::is_none) {
        return Err(ParseError::new(
            text.trim(),
            "expected at least one homeworld, written like Name (0, g1b3) y1-",
        )
        .at_line(line_number.max(1)));
    }
    let position =
        Position::from_parts(homes, [true, true], &others, side_to_move, TurnState::Start)
            .map_err(|error| ParseError::new(text.trim(), error.to_string()))?;
    let mut names = Names::default();
    for (index, name) in home_names.into_iter().enumerate() {
        if let Some(name) = name {
            names.set(index as Slot, name);
        }
    }
    for (index, name) in other_names.into_iter().enumerate() {
        if let Some(name) = name {
            names.set((index + HOME_SLOTS) as Slot, name);
        }
    }
    Ok(Board::with_names(position, names))
}

/// Parses one system with whitespace removed: `Name(0,g1b3)y1b2-`.
fn parse_system(text: &str) -> Result<(Option<Player>, Option<String>, System), ParseError> {
    let open = text.find('(').ok_or_else(|| {
        ParseError::new(
            text,
            "expected '(' before the stars, as in Name (0, g1b3) y1-",
        )
    })?;
    let close = text
        .find(')')
        .filter(|&close| close > open)
        .ok_or_else(|| ParseError::new(text, "expected ')' after the stars"))?;
    let name = &text[..open];
    let inside = &text[open + 1..close];
    let (owner, stars_text) = match inside.split_once(',') {
        Some((owner, stars)) => {
            let player = match owner {
                "0" => Player::First,
                "1" => Player::Second,
                _ => {
                    return Err(ParseError::new(
                        owner,
                        "expected the homeworld owner 0 or 1",
                    ))
                }
            };
            (Some(player), stars)
        }
        None => (None, inside),
    };
    let stars = parse_pieces(stars_text)?;
    let ships_text = &text[close + 1..];
    let (first, second) = ships_text.split_once('-').ok_or_else(|| {
        ParseError::new(
            text,
            "expected player 0's ships, '-', then player 1's ships",
        )
    })?;
    let system = System {
        stars,
        ships: [parse_pieces(first)?, parse_pieces(second)?],
    };
    let name = (!name.is_empty()).then(|| name.to_string());
    Ok((owner, name, system))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::hwpn;

    #[test]
    fn rules_example_converts_to_hwpn() {
        let board = parse(
            "Sam (0, g1) y1b2- | Dave (1, g2) -y3 | Delos (b2) r1-r1",
            Player::First,
        )
        .unwrap();
        assert_eq!(
            hwpn::write(&board.position, None),
            "g1:y1b2:/g2::y3/b2:r1:r1 0"
        );
        assert_eq!(board.name(0), "Sam");
        assert_eq!(board.name(2), "Delos");
    }

    #[test]
    fn multi_line_with_comments() {
        let text = "# a comment\nSam (0, g1b3) y1b2-\nDave (1, r2) -y3\n(b2) r1-r1 # trailing\n";
        let board = parse(text, Player::Second).unwrap();
        assert_eq!(
            hwpn::write(&board.position, None),
            "g1b3:y1b2:/r2::y3/b2:r1:r1 1"
        );
    }

    #[test]
    fn errors_name_the_line() {
        let error = parse("Sam (0, g1) y1b2-\nDave (1, g2) y3", Player::First).unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(parse("Sam (3, g1) y1-", Player::First).is_err());
        assert!(parse("", Player::First).is_err());
    }
}
