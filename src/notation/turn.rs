//! Turns as text, in three forms that all parse back to the same actions.
//!
//! - **Token** (the protocol's form, no whitespace): actions joined by `,`,
//!   words joined by `.`: `sac.y3.Home0,move.g1.Delos.Home1,cat.Home1.g`.
//!   A lone `pass` is a pass turn. Verbs: `home`, `build`, `trade`, `move`,
//!   `disc`, `capture`, `sac`, `cat`, `pass`.
//! - **Readable / SDG one-line** (for people and SuperDuperGames records):
//!   `Sacrifice Y3 Home0; Move G1 Delos Home1; Pass; Catastrophe Home1 Green`.
//! - **CLI** phrasing is accepted on input: `move y1 from A to B (b2)`,
//!   `capture g3 at B`, `convert y1 to g1 at A`, `catastrophe red at B`.
//!
//! Parsing is in two stages, as in shakmaty: [`parse_action`] reads the words
//! into an [`ActionText`] without a position, then [`resolve`] looks the
//! names up on a [`Board`] and checks the action against the rules. Playing
//! a whole turn from text ([`Board::play_turn_text`]) is in
//! [`super::play`]; its types are re-exported here.

use super::error::ParseError;
use super::names::Board;
use crate::rules::{Action, Colour, Piece, Rules};

pub use super::play::{resolve, NamedTurn, TurnError};

/// An action as written: pieces parsed, system names not yet looked up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionText {
    /// Create a homeworld: stars, then the ship.
    Homeworld {
        /// First star.
        star: Piece,
        /// Second star (`-` in SDG for a one-star home).
        second_star: Option<Piece>,
        /// Starting ship.
        ship: Piece,
    },
    /// Build `piece` at `system`.
    Build {
        /// The piece built.
        piece: Piece,
        /// Where.
        system: String,
    },
    /// Trade `from` for `to` at `system`.
    Trade {
        /// The ship given up.
        from: Piece,
        /// The piece taken.
        to: Piece,
        /// Where.
        system: String,
    },
    /// Move `ship` between existing systems.
    Move {
        /// The ship.
        ship: Piece,
        /// Origin name.
        from: String,
        /// Destination name.
        to: String,
    },
    /// Discover a new system with star `star`, optionally named.
    Discover {
        /// The ship.
        ship: Piece,
        /// Origin name.
        from: String,
        /// The new star.
        star: Piece,
        /// The new system's name; the default naming applies when absent.
        name: Option<String>,
    },
    /// Capture `ship` at `system`.
    Capture {
        /// The enemy ship.
        ship: Piece,
        /// Where.
        system: String,
    },
    /// Sacrifice `ship` at `system`.
    Sacrifice {
        /// The ship.
        ship: Piece,
        /// Where.
        system: String,
    },
    /// Catastrophe of `colour` at `system`.
    Catastrophe {
        /// Where.
        system: String,
        /// The colour.
        colour: Colour,
    },
    /// Pass (or one unused sacrifice action).
    Pass,
}

/// How strictly pieces are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// Exactly `g1`.
    Strict,
    /// Also `G1!`, `G1*`, `G2097152`: junk that old SDG records carry.
    Lenient,
}

/// `Piece::parse`, but never given non-ASCII text: records are outside data,
/// and a two-byte character such as `é` must be an error, not a slicing panic.
fn parse_piece_word(word: &str) -> Option<Piece> {
    if word.is_ascii() {
        Piece::parse(word)
    } else {
        None
    }
}

fn piece(word: &str, strictness: Strictness) -> Result<Piece, ParseError> {
    if let Some(piece) = parse_piece_word(word) {
        return Ok(piece);
    }
    if strictness == Strictness::Lenient && word.len() > 2 && word.is_char_boundary(2) {
        let junk_ok = word[2..]
            .chars()
            .all(|c| c.is_ascii_digit() || ".!$*`bikn".contains(c.to_ascii_lowercase()));
        if junk_ok {
            if let Some(piece) = parse_piece_word(&word[..2]) {
                return Ok(piece);
            }
        }
    }
    Err(ParseError::new(
        word,
        "expected a piece: a colour letter r/y/g/b and a size 1-3, such as g1",
    ))
}

/// The marks that may follow an attack target to name its owner: the seat
/// letters N, E, S, W of SDG records (`B1N`, `g3e`) and the digits 5 and 6
/// for the fifth and sixth seats of bigger games.
pub const OWNER_MARKS: [char; 10] = ['n', 'N', 'e', 'E', 's', 'S', 'w', 'W', '5', '6'];

/// Reads an attack target that may carry an owner suffix (`B1N`, `g3s`).
fn target_piece(word: &str, strictness: Strictness) -> Result<Piece, ParseError> {
    piece(word, strictness).or_else(|error| {
        let trimmed = word.trim_end_matches(OWNER_MARKS);
        parse_piece_word(trimmed).ok_or(error)
    })
}

fn colour(word: &str) -> Result<Colour, ParseError> {
    Colour::parse(word).ok_or_else(|| {
        ParseError::new(
            word,
            "expected a colour: red, yellow, green, blue (or r, y, g, b)",
        )
    })
}

fn is_filler(word: &str, fillers: &[&str]) -> bool {
    fillers
        .iter()
        .any(|filler| word.eq_ignore_ascii_case(filler))
}

fn usage(verb: &str, text: &str) -> ParseError {
    let expected = match verb {
        "homeworld" => "expected: homeworld STAR STAR|- SHIP",
        "build" => "expected: build PIECE SYSTEM",
        "trade" => "expected: trade OLD NEW SYSTEM",
        "move" => "expected: move SHIP FROM TO",
        "discover" => "expected: discover SHIP FROM STAR [NAME]",
        "capture" => "expected: capture SHIP SYSTEM",
        "sacrifice" => "expected: sacrifice SHIP SYSTEM",
        "catastrophe" => "expected: catastrophe SYSTEM COLOUR",
        _ => "expected one of: homeworld, build, trade, move, discover, capture, sacrifice, catastrophe, pass",
    };
    ParseError::new(text, expected)
}

/// The canonical verb for a keyword or abbreviation, in any case.
fn verb(word: &str) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    Some(match lower.as_str() {
        "homeworld" | "home" | "hom" | "h" | "hw" => "homeworld",
        "build" | "b" | "construct" | "con" | "buil" | "bu" => "build",
        "trade" | "t" | "tr" | "convert" | "swap" => "trade",
        "move" | "m" => "move",
        "discover" | "d" | "disc" | "disco" => "discover",
        "attack" | "a" | "capture" | "conquer" | "cap" => "capture",
        "sacrifice" | "sac" | "s" => "sacrifice",
        "catastrophe" | "cat" | "c" => "catastrophe",
        "pass" | "p" => "pass",
        _ => return None,
    })
}

/// The most words one action takes: `move SHIP from A to B (STAR)` has
/// seven, and an SDG homeworld line may end with a `*` confirmation.
pub const MAX_ACTION_WORDS: usize = 8;

/// Parses one action from its words (already split on whitespace or `.`).
/// The work is bounded by [`MAX_ACTION_WORDS`], whatever the input.
///
/// # Errors
/// Names the offending word and the expected form; more than
/// [`MAX_ACTION_WORDS`] words is an error.
pub fn parse_words(words: &[&str], strictness: Strictness) -> Result<ActionText, ParseError> {
    let mut text = words[..words.len().min(MAX_ACTION_WORDS)].join(" ");
    if words.len() > MAX_ACTION_WORDS {
        text.push_str(" ...");
    }
    let Some((&first, rest)) = words.split_first() else {
        return Err(usage("", &text));
    };
    let verb = verb(first).ok_or_else(|| usage("", first))?;
    let bad = || usage(verb, &text);
    if words.len() > MAX_ACTION_WORDS {
        return Err(bad());
    }
    let args: Vec<&str> = rest.to_vec();
    // One arm a verb, each listing the phrasings it accepts: the grammar
    // reads best in one piece, so this match stays whole.
    Ok(match verb {
        "pass" => {
            if !args.is_empty() {
                return Err(ParseError::new(text, "expected nothing after pass"));
            }
            ActionText::Pass
        }
        "homeworld" => {
            // STAR STAR|- SHIP [NAME] [*]
            let args: Vec<&str> = args.into_iter().filter(|word| *word != "*").collect();
            if args.len() < 3 || args.len() > 4 {
                return Err(bad());
            }
            let second_star = match args[1] {
                "-" => None,
                word => Some(piece(word, strictness)?),
            };
            ActionText::Homeworld {
                star: piece(args[0], strictness)?,
                second_star,
                ship: piece(args[2], strictness)?,
            }
        }
        "build" => match args.as_slice() {
            [p, system] => ActionText::Build {
                piece: piece(p, strictness)?,
                system: system.to_string(),
            },
            [p, filler, system] if is_filler(filler, &["at", "in"]) => ActionText::Build {
                piece: piece(p, strictness)?,
                system: system.to_string(),
            },
            _ => return Err(bad()),
        },
        "trade" => match args.as_slice() {
            [from, to, system] => ActionText::Trade {
                from: piece(from, strictness)?,
                to: piece(to, strictness)?,
                system: system.to_string(),
            },
            [from, filler, to, filler2, system]
                if is_filler(filler, &["to", "for"]) && is_filler(filler2, &["at", "in"]) =>
            {
                ActionText::Trade {
                    from: piece(from, strictness)?,
                    to: piece(to, strictness)?,
                    system: system.to_string(),
                }
            }
            _ => return Err(bad()),
        },
        "move" => match args.as_slice() {
            [ship, from, to] => ActionText::Move {
                ship: piece(ship, strictness)?,
                from: from.to_string(),
                to: to.to_string(),
            },
            [ship, f, from, t, to] if is_filler(f, &["from"]) && is_filler(t, &["to"]) => {
                ActionText::Move {
                    ship: piece(ship, strictness)?,
                    from: from.to_string(),
                    to: to.to_string(),
                }
            }
            [ship, f, from, t, name, star]
                if is_filler(f, &["from"])
                    && is_filler(t, &["to"])
                    && star.starts_with('(')
                    && star.ends_with(')') =>
            {
                ActionText::Discover {
                    ship: piece(ship, strictness)?,
                    from: from.to_string(),
                    star: piece(&star[1..star.len() - 1], strictness)?,
                    name: Some(name.to_string()),
                }
            }
            _ => return Err(bad()),
        },
        "discover" => match args.as_slice() {
            [ship, from, star] => ActionText::Discover {
                ship: piece(ship, strictness)?,
                from: from.to_string(),
                star: piece(star, strictness)?,
                name: None,
            },
            [ship, from, star, name] => ActionText::Discover {
                ship: piece(ship, strictness)?,
                from: from.to_string(),
                star: piece(star, strictness)?,
                name: Some(name.to_string()),
            },
            _ => return Err(bad()),
        },
        "capture" => match args.as_slice() {
            [ship, system] => ActionText::Capture {
                ship: target_piece(ship, strictness)?,
                system: system.to_string(),
            },
            [ship, filler, system] if is_filler(filler, &["at", "in"]) => ActionText::Capture {
                ship: target_piece(ship, strictness)?,
                system: system.to_string(),
            },
            [ship, system, owner]
                if is_filler(
                    owner.trim_matches(['(', ')']),
                    &["n", "s", "north", "south"],
                ) =>
            {
                ActionText::Capture {
                    ship: target_piece(ship, strictness)?,
                    system: system.to_string(),
                }
            }
            _ => return Err(bad()),
        },
        "sacrifice" => match args.as_slice() {
            [ship, system] => ActionText::Sacrifice {
                ship: piece(ship, strictness)?,
                system: system.to_string(),
            },
            [ship, filler, system] if is_filler(filler, &["at", "in"]) => ActionText::Sacrifice {
                ship: piece(ship, strictness)?,
                system: system.to_string(),
            },
            _ => return Err(bad()),
        },
        "catastrophe" => match args.as_slice() {
            [system, c] if Colour::parse(c).is_some() => ActionText::Catastrophe {
                system: system.to_string(),
                colour: colour(c)?,
            },
            [c, system] if Colour::parse(c).is_some() => ActionText::Catastrophe {
                system: system.to_string(),
                colour: colour(c)?,
            },
            [c, filler, system] if is_filler(filler, &["at", "in"]) => ActionText::Catastrophe {
                system: system.to_string(),
                colour: colour(c)?,
            },
            [_, c] => return Err(colour(c).map(|_| ()).unwrap_err()),
            _ => return Err(bad()),
        },
        _ => unreachable!("every verb is handled"),
    })
}

/// Parses one action written with spaces (SDG or CLI phrasing).
///
/// ```
/// use supernova::notation::turn::{parse_action, ActionText, Strictness};
/// use supernova::rules::Piece;
///
/// let build = ActionText::Build { piece: Piece::parse("g1").unwrap(), system: "Home0".into() };
/// assert_eq!(parse_action("build g1 at Home0", Strictness::Strict).unwrap(), build);
/// assert_eq!(parse_action("B G1! Home0", Strictness::Lenient).unwrap(), build);
/// assert!(parse_action("build g1", Strictness::Lenient).is_err());
/// ```
///
/// # Errors
/// Names the offending word and the expected form.
pub fn parse_action(text: &str, strictness: Strictness) -> Result<ActionText, ParseError> {
    let words: Vec<&str> = text.split_whitespace().take(MAX_ACTION_WORDS + 1).collect();
    parse_words(&words, strictness)
}

/// Parses a whole turn: a protocol token (no spaces, actions joined by `,`),
/// or readable text with actions separated by `;` or new lines.
///
/// ```
/// use supernova::notation::turn::{parse_turn, ActionText};
///
/// let token = parse_turn("sac.y3.Home0,move.g1.Delos.Home1").unwrap();
/// let sdg = parse_turn("Sacrifice Y3 Home0; Move G1 Delos Home1").unwrap();
/// let cli = parse_turn("sacrifice y3 at Home0; move g1 from Delos to Home1").unwrap();
/// assert_eq!(token, sdg);
/// assert_eq!(token, cli);
/// assert_eq!(parse_turn("pass").unwrap(), [ActionText::Pass]);
/// assert!(parse_turn("fly.g1.Home0").is_err());
/// ```
///
/// # Errors
/// Names the offending action and the expected form.
pub fn parse_turn(text: &str) -> Result<Vec<ActionText>, ParseError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(ParseError::new(
            text,
            "expected a turn, such as pass or build.g1.Home0",
        ));
    }
    if !trimmed.contains(char::is_whitespace)
        && (trimmed.contains('.') || trimmed.eq_ignore_ascii_case("pass"))
    {
        return trimmed
            .split(',')
            .map(|action| {
                let words: Vec<&str> = action.split('.').collect();
                parse_words(&words, Strictness::Strict)
            })
            .collect();
    }
    trimmed
        .split([';', '\n'])
        .map(str::trim)
        .filter(|action| !action.is_empty())
        .map(|action| parse_action(action, Strictness::Lenient))
        .collect()
}

/// Which written form to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// The protocol token form: `move.y1.A.B`.
    Token,
    /// Lower-case words: `move y1 A B`.
    Readable,
    /// SuperDuperGames capitalisation: `Move Y1 A B`.
    Sdg,
}

/// Writes one action as it reads on `board` (the board before the action).
pub fn format_action(board: &Board, action: Action, style: Style) -> String {
    format_named_action(board, action, None, style)
}

/// [`format_action`], naming a discovered system `discovered` instead of by
/// the default rule, for turns whose author chose the name.
pub fn format_named_action(
    board: &Board,
    action: Action,
    discovered: Option<&str>,
    style: Style,
) -> String {
    format_action_with(
        action,
        &|slot| board.name(slot).to_string(),
        &|| discovered.map_or_else(|| board.names.next_default(&board.position), str::to_string),
        "",
        style,
    )
}

/// Writes one action on any board: `name` names a slot, `new_name` gives
/// the name of a discovered system, and `capture_mark` follows a captured
/// piece (the owner's seat letter in multi-player games, `Attack G3E X`).
/// The two-player and multi-player writers share it.
pub fn format_action_with(
    action: Action,
    name: &dyn Fn(crate::rules::Slot) -> String,
    new_name: &dyn Fn() -> String,
    capture_mark: &str,
    style: Style,
) -> String {
    let p = |piece: Piece| match style {
        Style::Sdg => piece.to_string().to_ascii_uppercase(),
        _ => piece.to_string(),
    };
    let words: Vec<String> = match action {
        Action::Homeworld {
            star,
            second_star,
            ship,
        } => vec![
            "homeworld".into(),
            p(star),
            second_star.map_or("-".into(), p),
            p(ship),
        ],
        Action::Build { system, piece } => vec!["build".into(), p(piece), name(system)],
        Action::Trade { system, from, to } => vec!["trade".into(), p(from), p(to), name(system)],
        Action::Move { from, to, ship } => vec!["move".into(), p(ship), name(from), name(to)],
        Action::Discover { from, ship, star } => {
            vec!["discover".into(), p(ship), name(from), p(star), new_name()]
        }
        Action::Capture { system, ship } => vec![
            "capture".into(),
            format!("{}{capture_mark}", p(ship)),
            name(system),
        ],
        Action::Sacrifice { system, ship } => vec!["sacrifice".into(), p(ship), name(system)],
        Action::Catastrophe { system, colour } => match style {
            Style::Token => vec![
                "catastrophe".into(),
                name(system),
                colour.letter().to_string(),
            ],
            _ => vec!["catastrophe".into(), name(system), colour.word().into()],
        },
        Action::Pass => vec!["pass".into()],
    };
    match style {
        Style::Token => {
            let mut words = words;
            words[0] = match words[0].as_str() {
                "homeworld" => "home",
                "discover" => "disc",
                "sacrifice" => "sac",
                "catastrophe" => "cat",
                other => other,
            }
            .to_string();
            words.join(".")
        }
        Style::Readable => words.join(" "),
        Style::Sdg => {
            let mut words = words;
            if words[0] == "capture" {
                words[0] = "attack".into();
            }
            let mut first = words[0].clone();
            first[..1].make_ascii_uppercase();
            words[0] = first;
            if let Action::Catastrophe { colour, .. } = action {
                let mut word = colour.word().to_string();
                word[..1].make_ascii_uppercase();
                words[2] = word;
            }
            words.join(" ")
        }
    }
}

/// Writes a whole turn played from `board`. In the SDG style a sacrifice is
/// padded with one `Pass` per unused action, as SDG records require.
///
/// ```
/// use supernova::notation::hwpn;
/// use supernova::notation::turn::{format_turn, Style};
/// use supernova::rules::Rules;
///
/// let board = hwpn::parse("r1b3:g3y2:/y2b2::g3 0").unwrap();
/// let mut after = board.clone();
/// let turn = after.play_turn_text(&Rules::STANDARD, "sac.y2.Home0,move.g3.Home0.Home1").unwrap();
/// let write = |style| format_turn(&board, &Rules::STANDARD, &turn.actions, style);
/// assert_eq!(write(Style::Token), "sac.y2.Home0,move.g3.Home0.Home1");
/// assert_eq!(write(Style::Readable), "sacrifice y2 Home0; move g3 Home0 Home1");
/// assert_eq!(write(Style::Sdg), "Sacrifice Y2 Home0; Move G3 Home0 Home1; Pass");
/// ```
pub fn format_turn(board: &Board, rules: &Rules, actions: &[Action], style: Style) -> String {
    format_named_turn(board, rules, actions, &[], style)
}

/// [`format_turn`] for a turn whose discoveries were named by its author:
/// `names[i]` is the name of the system action `i` discovered (missing or
/// `None`: the default name).
pub fn format_named_turn(
    board: &Board,
    rules: &Rules,
    actions: &[Action],
    names: &[Option<String>],
    style: Style,
) -> String {
    let mut working = board.clone();
    let mut parts = Vec::with_capacity(actions.len() + 3);
    for (index, &action) in actions.iter().enumerate() {
        let name = names.get(index).and_then(|name| name.as_deref());
        parts.push(format_named_action(&working, action, name, style));
        if working.apply(rules, action, name).is_err() {
            working.position.apply_unchecked(rules, action);
            working.names.sync(&working.position);
        }
    }
    join_turn(parts, actions.iter().copied(), style)
}

/// Joins a turn's written actions in `style`: an SDG sacrifice is padded
/// with one `Pass` per unused action, and an empty turn is a pass. The
/// two-player and multi-player writers share it.
pub fn join_turn(
    mut parts: Vec<String>,
    actions: impl Iterator<Item = Action>,
    style: Style,
) -> String {
    let mut sacrifice_left = 0u8;
    for action in actions {
        match action {
            Action::Sacrifice { ship, .. } => sacrifice_left = ship.size(),
            // A colour action or an explicit pass uses one sacrifice action.
            _ if (action.power().is_some() || action == Action::Pass) && sacrifice_left > 0 => {
                sacrifice_left -= 1
            }
            _ => {}
        }
    }
    if style == Style::Sdg {
        for _ in 0..sacrifice_left {
            parts.push("Pass".into());
        }
    }
    if parts.is_empty() {
        return match style {
            Style::Sdg => "Pass".into(),
            _ => "pass".into(),
        };
    }
    match style {
        Style::Token => parts.join(","),
        _ => parts.join("; "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::hwpn;

    #[test]
    fn cli_and_sdg_phrasings_agree() {
        let forms = [
            ("move y1 from A to B", "move y1 A B"),
            ("capture g3 at B", "attack G3 B"),
            ("convert y1 to g1 at A", "trade Y1 G1 A"),
            ("catastrophe red at B", "catastrophe B red"),
            ("sacrifice y2 at X", "Sac Y2 X"),
            ("build g1 at X", "B G1! X"),
        ];
        for (cli, sdg) in forms {
            assert_eq!(
                parse_action(cli, Strictness::Lenient).unwrap(),
                parse_action(sdg, Strictness::Lenient).unwrap(),
                "{cli} vs {sdg}"
            );
        }
        assert_eq!(
            parse_action("move g3 from A to Z (y2)", Strictness::Lenient).unwrap(),
            parse_action("discover g3 A y2 Z", Strictness::Lenient).unwrap()
        );
        assert_eq!(
            parse_action("attack B1N Cobalt", Strictness::Lenient).unwrap(),
            parse_action("attack b1 Cobalt n", Strictness::Lenient).unwrap()
        );
    }

    #[test]
    fn token_round_trips() {
        let board = hwpn::parse("A=r1b3:g3:/B=y2b1::g3/X=g2:y1y2: 0").unwrap();
        let rules = Rules::STANDARD;
        let mut played = board.clone();
        let turn = played
            .play_turn_text(
                &rules,
                "sacrifice y2 at X; move g3 from A to Z (y2); move y1 from X to A",
            )
            .unwrap();
        let token = format_turn(&board, &rules, &turn.actions, Style::Token);
        assert_eq!(token, "sac.y2.X,disc.g3.A.y2.Delos,move.y1.X.A");
        let mut again = board.clone();
        again.play_turn_text(&rules, &token).unwrap();
        assert_eq!(again.position, played.position);
        let sdg = format_turn(&board, &rules, &turn.actions, Style::Sdg);
        assert_eq!(sdg, "Sacrifice Y2 X; Discover G3 A Y2 Delos; Move Y1 X A");
        // Unused sacrifice actions are padded with passes, counting explicit ones.
        let sacrifice = [Action::Sacrifice {
            system: 2,
            ship: Piece::parse("y2").unwrap(),
        }];
        assert_eq!(
            format_turn(&board, &rules, &sacrifice, Style::Sdg),
            "Sacrifice Y2 X; Pass; Pass"
        );
        let with_pass = [sacrifice[0], Action::Pass];
        assert_eq!(
            format_turn(&board, &rules, &with_pass, Style::Sdg),
            "Sacrifice Y2 X; Pass; Pass"
        );
    }

    #[test]
    fn bad_turn_text_is_an_error() {
        let mut board = hwpn::parse("A=r1b3:g3:/B=y2b1::g3/X=g2:y1y2: 0").unwrap();
        let before = board.clone();
        for text in [
            "",
            "fly y1 A B",
            "move y1 A",
            "move q1 A B",
            "move y1 A Nowhere",
            "build g2 A",
            "cat A purple",
        ] {
            assert!(
                board.play_turn_text(&Rules::STANDARD, text).is_err(),
                "{text}"
            );
            assert_eq!(board, before);
        }
    }
}
