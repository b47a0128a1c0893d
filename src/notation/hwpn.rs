//! HWPN, the one-line position notation (rules.md §14), like FEN for chess.
//!
//! ```text
//! r1b3:g3:/y2b1::g3/b2:r1:r1 0
//! ```
//! Systems are separated by `/`: player 0's home, player 1's home, then the
//! others. Each is `stars:player-0-ships:player-1-ships`. A home not yet
//! created is `-` and a destroyed one `x`. Then the side to move, and optional
//! fields: `ply=N` (ignored for identity) and `turn=s|d|<colour><n>` for a
//! position in the middle of a turn (start, done, or inside a sacrifice of
//! that colour with n actions left). Any system may carry a name, `Name=body`.
//!
//! In setup, player 0 normally creates first (`-/- 0`, `H/- 1`, `H/H 0`); after
//! a setup pass (`Rules::setup_pass`, the `sdg` profile) player 1 may create
//! first, in their own slot: `-/- 1`, `-/H 0`, `H/H 1`. Both orders parse.
//!
//! The canonical form sorts pieces r<y<g<b then by size, and non-home systems
//! by their text; [`write()`] prints it and [`parse`] accepts any order.

use super::error::ParseError;
use super::names::{is_plain_name, Board, Names};
use crate::rules::{
    Colour, Piece, PieceSet, Player, Position, Slot, System, TurnState, HOME_SLOTS, SLOT_COUNT,
};

/// Prints a position, with names when `names` is given.
pub fn write(position: &Position, names: Option<&Names>) -> String {
    let body = |slot: Slot| position.system(slot).to_string();
    let named = |slot: Slot, text: String| -> String {
        match names.and_then(|names| names.get(slot)) {
            Some(name) if is_plain_name(name) => format!("{name}={text}"),
            _ => text,
        }
    };
    let mut parts = Vec::with_capacity(SLOT_COUNT);
    for player in Player::BOTH {
        let slot = player.index() as Slot;
        parts.push(if !position.home_created(player) {
            "-".to_string()
        } else if !position.system(slot).exists() {
            "x".to_string()
        } else {
            named(slot, body(slot))
        });
    }
    let mut others: Vec<(String, Slot)> = (HOME_SLOTS as Slot..SLOT_COUNT as Slot)
        .filter(|&slot| position.system(slot).exists())
        .map(|slot| (body(slot), slot))
        .collect();
    others.sort();
    parts.extend(others.into_iter().map(|(text, slot)| named(slot, text)));
    let mut text = format!("{} {}", parts.join("/"), position.side_to_move());
    match position.turn_state() {
        TurnState::Start => {}
        TurnState::Done => text.push_str(" turn=d"),
        TurnState::Sacrifice { colour, remaining } => {
            text.push_str(&format!(" turn={}{}", colour.letter(), remaining));
        }
    }
    text
}

/// Prints a board with its names.
pub fn write_board(board: &Board) -> String {
    write(&board.position, Some(&board.names))
}

/// Parses a run of pieces such as `r1g3g3`; an empty run is the empty set.
pub fn parse_pieces(text: &str) -> Result<PieceSet, ParseError> {
    let mut set = PieceSet::EMPTY;
    let bytes = text.as_bytes();
    if bytes.len() % 2 != 0 {
        return Err(ParseError::new(
            text,
            "expected pieces such as r1g3: a colour letter r/y/g/b and a size 1-3 each",
        ));
    }
    for chunk in text.as_bytes().chunks(2) {
        let token = std::str::from_utf8(chunk).unwrap_or("?");
        let piece = Piece::parse(token).ok_or_else(|| {
            ParseError::new(
                token,
                "expected a piece: a colour letter r/y/g/b and a size 1-3",
            )
        })?;
        if set.count(piece) == 3 {
            return Err(ParseError::new(text, format!("more than three {piece}")));
        }
        set.add(piece);
    }
    Ok(set)
}

fn parse_body(text: &str) -> Result<System, ParseError> {
    let fields: Vec<&str> = text.split(':').collect();
    if fields.len() != 3 {
        return Err(ParseError::new(
            text,
            "expected a system as stars:player-0-ships:player-1-ships",
        ));
    }
    Ok(System {
        stars: parse_pieces(fields[0])?,
        ships: [parse_pieces(fields[1])?, parse_pieces(fields[2])?],
    })
}

fn split_name(text: &str) -> Result<(Option<&str>, &str), ParseError> {
    match text.split_once('=') {
        Some((name, body)) => {
            if !is_plain_name(name) {
                return Err(ParseError::new(
                    name,
                    "expected a system name of letters, digits and _",
                ));
            }
            Ok((Some(name), body))
        }
        None => Ok((None, text)),
    }
}

/// Parses HWPN into a board; unnamed systems get default names.
///
/// ```
/// use supernova::notation::hwpn;
/// use supernova::rules::{Player, Rules};
///
/// // Player 0's home, player 1's home, one other system; player 0 to move.
/// let board = hwpn::parse("Sam=r1b3:g3:/Dave=y2b1::g3/Vega=b2:r1:r1 0").unwrap();
/// assert_eq!(board.position.side_to_move(), Player::First);
/// assert_eq!(board.slot("Vega"), Ok(2));
/// assert_eq!(board.position.count_turns(&Rules::STANDARD) > 0, true);
/// // Names do not change the position; the canonical text drops them.
/// let plain = hwpn::parse("r1b3:g3:/y2b1::g3/b2:r1:r1 0").unwrap();
/// assert_eq!(plain.position, board.position);
/// assert_eq!(hwpn::write(&board.position, None), "r1b3:g3:/y2b1::g3/b2:r1:r1 0");
/// assert_eq!(hwpn::write_board(&board), "Sam=r1b3:g3:/Dave=y2b1::g3/Vega=b2:r1:r1 0");
///
/// // Errors name the offending token.
/// let error = hwpn::parse("r1b3:g3:/y2b1::q3 0").unwrap_err();
/// assert_eq!(error.token, "q3");
/// ```
///
/// # Errors
/// Names the offending token and what was expected.
pub fn parse(text: &str) -> Result<Board, ParseError> {
    let mut tokens = text.split_whitespace();
    let systems_text = tokens
        .next()
        .ok_or_else(|| ParseError::new(text, "expected a position such as r1b3:g3:/y2b1::g3 0"))?;
    let side_text = tokens.next().ok_or_else(|| {
        ParseError::new(text, "expected the side to move (0 or 1) after the systems")
    })?;
    let side_to_move = match side_text {
        "0" => Player::First,
        "1" => Player::Second,
        _ => {
            return Err(ParseError::new(
                side_text,
                "expected the side to move: 0 or 1",
            ))
        }
    };
    let mut turn_state = TurnState::Start;
    for field in tokens {
        if let Some(value) = field.strip_prefix("ply=") {
            value
                .parse::<u32>()
                .map_err(|_| ParseError::new(field, "expected ply=N with N a whole number"))?;
        } else if let Some(value) = field.strip_prefix("turn=") {
            turn_state = parse_turn_state(value).ok_or_else(|| {
                ParseError::new(
                    field,
                    "expected turn=s, turn=d or turn=<colour letter><actions left 1-3>",
                )
            })?;
        } else {
            return Err(ParseError::new(
                field,
                "expected an optional field ply=N or turn=...",
            ));
        }
    }
    let parts: Vec<&str> = systems_text.split('/').collect();
    if parts.len() < 2 {
        return Err(ParseError::new(
            systems_text,
            "expected at least the two home slots separated by '/'",
        ));
    }
    let mut names = Names::default();
    let mut homes = [None, None];
    let mut created = [false, false];
    for index in 0..HOME_SLOTS {
        match parts[index] {
            "-" => {}
            "x" => created[index] = true,
            text => {
                let (name, body) = split_name(text)?;
                let system = parse_body(body)?;
                if system.stars.is_empty() || system.stars.len() > 2 {
                    return Err(ParseError::new(
                        text,
                        "expected a homeworld with one or two stars",
                    ));
                }
                if let Some(name) = name {
                    names.set(index as Slot, name);
                }
                homes[index] = Some(system);
                created[index] = true;
            }
        }
    }
    let mut others = Vec::new();
    for (index, text) in parts[HOME_SLOTS..].iter().enumerate() {
        let (name, body) = split_name(text)?;
        let system = parse_body(body)?;
        if system.stars.len() != 1 {
            return Err(ParseError::new(
                *text,
                "expected exactly one star in a non-home system",
            ));
        }
        if system.has_no_ships() {
            return Err(ParseError::new(
                *text,
                "expected at least one ship in a non-home system",
            ));
        }
        if let Some(name) = name {
            names.set((index + HOME_SLOTS) as Slot, name);
        }
        others.push(system);
    }
    let position = Position::from_parts(homes, created, &others, side_to_move, turn_state)
        .map_err(|error| ParseError::new(systems_text, error.to_string()))?;
    let mut seen: Vec<&str> = Vec::new();
    for slot in 0..SLOT_COUNT as Slot {
        if let Some(name) = names.get(slot) {
            if seen.iter().any(|other| other.eq_ignore_ascii_case(name)) {
                return Err(ParseError::new(name, "expected each system name only once"));
            }
            seen.push(name);
        }
    }
    Ok(Board::with_names(position, names))
}

/// Reads a turn-state field (`s`, `d`, or a sacrifice's colour and actions
/// left, like `y2`); the multi-player notation shares it.
pub(super) fn parse_turn_state(text: &str) -> Option<TurnState> {
    match text {
        "s" => Some(TurnState::Start),
        "d" => Some(TurnState::Done),
        _ => {
            let mut chars = text.chars();
            let colour = Colour::parse(&chars.next()?.to_string())?;
            let remaining = chars.next()?.to_digit(10)? as u8;
            if chars.next().is_some() || !(1..=3).contains(&remaining) {
                return None;
            }
            Some(TurnState::Sacrifice { colour, remaining })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_from_the_rules_round_trip() {
        for text in [
            "-/- 0",
            "r1b3:g3:/- 1",
            "r1b3:g3:/y2b1::g3 0",
            "g1:y1b2:/g2::y3/b2:r1:r1 0",
            "r1b2:r2g1g3:/y1b3:r3:r1r2g1g1/b2::y2/y2::r1/y3::r2/y3:g2: 0",
        ] {
            let board = parse(text).unwrap();
            assert_eq!(write(&board.position, None), text);
        }
    }

    #[test]
    fn names_and_order_do_not_change_identity() {
        let a = parse("A=r1b3:g3:/B=y2b1::g3/X=g2:y1y2:/Y=b1:r1: 0").unwrap();
        let b = parse("r1b3:g3:/y2b1::g3/b1:r1:/g2:y1y2: 0").unwrap();
        assert_eq!(a.position, b.position);
        assert_eq!(a.position.hash(), b.position.hash());
        assert_eq!(
            write_board(&a),
            "A=r1b3:g3:/B=y2b1::g3/Y=b1:r1:/X=g2:y1y2: 0"
        );
        assert_eq!(
            write_board(&parse(&write_board(&a)).unwrap()),
            write_board(&a)
        );
    }

    #[test]
    fn bad_input_names_the_token() {
        let error = parse("r1b3:g3:/y2b1::g3 2").unwrap_err();
        assert_eq!(error.token, "2");
        let error = parse("r1b3:g3:/y2b1::q3 0").unwrap_err();
        assert_eq!(error.token, "q3");
        let error = parse("r1b3:g3:/y2b1::g3/b2:: 0").unwrap_err();
        assert!(error.expected.contains("ship"), "{error}");
        let error = parse("r1b3:r1r1r1r1:/y2b1::g3 0").unwrap_err();
        assert!(error.expected.contains("three"), "{error}");
        assert!(parse("").is_err());
        assert!(parse("r1b3:g3:/y2b1::g3 0 turn=q9").is_err());
    }

    #[test]
    fn setups_after_a_setup_pass_are_positions() {
        // Either player may create first (after a setup pass, under `sdg`),
        // and a pass in progress is Done with no homeworld.
        for text in [
            "-/- 1",
            "-/r1b3::g3 0",
            "-/- 0 turn=d",
            "-/r1b3::g3 1 turn=d",
        ] {
            assert_eq!(write(&parse(text).unwrap().position, None), text);
        }
        // A player who has created cannot be starting a setup turn, and one
        // who has not cannot be done after the other has created.
        for text in [
            "r1b3:g3:/- 0",
            "-/r1b3::g3 1",
            "r1b3:g3:/- 1 turn=d",
            "-/- 0 turn=g1",
        ] {
            let error = parse(text).unwrap_err();
            assert!(error.expected.contains("setup"), "{text}: {error}");
        }
    }

    #[test]
    fn mid_turn_state_round_trips() {
        let text = "r1b3:g3:/y2b1::g3/g2:y1: 0 turn=y2";
        assert_eq!(write(&parse(text).unwrap().position, None), text);
    }
}
