//! Text for multi-player games: a position notation, system names, and
//! turns read and written in the same forms as two-player turns.
//!
//! Turns use the two-player words (`Build G1 Home0`, `build.g1.Home0`); only
//! a capture needs more, because it must say whose ship it takes. SDG
//! records mark the owner's seat after the piece: `Attack G3E Gregf` takes
//! East's G3. Seats are marked `N`, `E`, `S`, `W` in turn order (`N`, `S`
//! with two players, as in two-player records), then `5` and `6`. A capture
//! without a mark is read when exactly one other player has such a ship
//! there.
//!
//! The position notation extends HWPN (rules.md §14):
//!
//! ```text
//! players=3 r1b3:g3::/y2b1::g3:/-/b2:r1:: 2 turn=d out=1
//! ```
//! Each body has one ship list per seat (`stars:seat0:seat1:seat2`); the
//! first `players` slots are the homes in seat order (`-` not created yet,
//! `x` destroyed), then the other systems. After the side to move come
//! optional fields: `victory=last|sinister|good-evil`, `evil=SEATS` (Good
//! versus Evil), `out=SEATS` (eliminated or resigned), `resigned=SEATS`,
//! `turn=s|d|<colour><n>` as in HWPN, and `result=draw` or
//! `result=SEATS` (with `by=resignation` when a resignation decided it).
//! SEATS is a run of seat digits, `02`. `players=N` is required and comes
//! first. Names work as in HWPN: `Vega=b2:r1::`.

use super::error::{excerpt, ParseError};
use super::hwpn::{parse_pieces, parse_turn_state};
use super::names::{is_plain_name, DEFAULT_NAMES, MAX_NAME_CHARS};
use super::play::{resolve_with, TurnError};
use super::turn::{
    format_action_with, join_turn, parse_action, ActionText, Strictness, Style, OWNER_MARKS,
};
use crate::rules::multi::{
    Fleet, MultiAction, MultiOutcome, MultiParts, MultiPosition, MultiSystem, Seat, Seats, Victory,
};
use crate::rules::{Action, IllegalReason, Rules, Slot, TurnState};

/// The mark of `seat` in a game of `players`: `N`, `E`, `S`, `W`, `5`, `6`
/// in turn order (`N`, `S` with two players, as SDG seated them).
pub fn seat_mark(seat: Seat, players: usize) -> char {
    if players == 2 {
        return ['N', 'S'][seat as usize & 1];
    }
    ['N', 'E', 'S', 'W', '5', '6'][seat as usize % 6]
}

/// The seat a mark names in a game of `players`, ignoring case.
pub fn seat_of_mark(mark: char, players: usize) -> Option<Seat> {
    let mark = mark.to_ascii_uppercase();
    (0..players as Seat).find(|&seat| seat_mark(seat, players) == mark)
}

/// The owner mark written after a captured piece in one action's text
/// (`Attack G3E Gregf` gives `E`), if the action is a capture with one.
pub fn owner_mark(text: &str) -> Option<char> {
    let mut words = text.split(|c: char| c.is_whitespace() || c == '.');
    let mut words = words.by_ref().filter(|word| !word.is_empty());
    let verb = words.next()?.to_ascii_lowercase();
    if !matches!(
        verb.as_str(),
        "attack" | "a" | "capture" | "conquer" | "cap"
    ) {
        return None;
    }
    let ship = words.next()?;
    let mut chars = ship.chars().skip(2);
    let mark = chars.next()?;
    (chars.next().is_none() && OWNER_MARKS.contains(&mark)).then_some(mark)
}

/// One step of a turn as text: the parsed action and the owner mark of a
/// capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepText {
    /// The action, names not yet looked up.
    pub action: ActionText,
    /// The seat mark after a captured piece, if any.
    pub owner: Option<char>,
}

impl StepText {
    /// Reads one action's text in any form [`parse_action`] reads.
    ///
    /// # Errors
    /// As [`parse_action`].
    pub fn parse(text: &str) -> Result<StepText, ParseError> {
        let text = text.trim();
        let action = if !text.contains(char::is_whitespace) && text.contains('.') {
            let words: Vec<&str> = text.split('.').collect();
            super::turn::parse_words(&words, Strictness::Lenient)?
        } else {
            parse_action(text, Strictness::Lenient)?
        };
        Ok(StepText {
            action,
            owner: owner_mark(text),
        })
    }
}

/// Reads a whole turn: a token (actions joined by `,`) or readable text
/// (actions separated by `;` or new lines).
///
/// # Errors
/// Names the action that does not parse.
pub fn parse_turn(text: &str) -> Result<Vec<StepText>, ParseError> {
    let trimmed = text.trim();
    let parts: Vec<&str> = if !trimmed.contains(char::is_whitespace) && !trimmed.contains(';') {
        trimmed.split(',').collect()
    } else {
        trimmed.split([';', '\n']).collect()
    };
    let steps: Vec<StepText> = parts
        .into_iter()
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(StepText::parse)
        .collect::<Result<_, _>>()?;
    if steps.is_empty() {
        return Err(ParseError::new(text, "expected a turn, such as pass"));
    }
    Ok(steps)
}

/// A multi-player position with a name per slot, kept in step as actions
/// are applied (as [`super::Board`] does for two players).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultiBoard {
    /// The position.
    pub position: MultiPosition,
    names: Vec<Option<String>>,
}

/// A played multi-player turn: its actions, each discovery's name, the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultiTurn {
    /// The actions (padding passes dropped).
    pub actions: Vec<MultiAction>,
    /// For each action, the name of the system it discovered, if any.
    pub names: Vec<Option<String>>,
    /// The result after the turn.
    pub outcome: MultiOutcome,
}

impl MultiBoard {
    /// A board with default names: homes `Home0`, `Home1`, ..., other
    /// systems from the homeworlds-cli list.
    pub fn new(position: MultiPosition) -> MultiBoard {
        let mut board = MultiBoard {
            position,
            names: Vec::new(),
        };
        board.sync();
        board
    }

    /// The name of a slot.
    pub fn name(&self, slot: Slot) -> &str {
        self.names
            .get(slot as usize)
            .and_then(|name| name.as_deref())
            .unwrap_or("?")
    }

    /// Names a slot (a home after its player, a system as a record names it).
    pub fn set_name(&mut self, slot: Slot, name: impl Into<String>) {
        let index = slot as usize;
        if self.names.len() <= index {
            self.names.resize(index + 1, None);
        }
        self.names[index] = Some(name.into());
    }

    fn live(&self, slot: Slot) -> bool {
        self.position.is_home(slot) || self.position.system(slot).exists()
    }

    fn given(&self, slot: Slot) -> Option<&str> {
        self.names
            .get(slot as usize)
            .and_then(|name| name.as_deref())
    }

    /// Finds a live system by name: exact match first, then ignoring case.
    pub fn find(&self, name: &str) -> Option<Slot> {
        let slots = || (0..self.names.len() as Slot).filter(|&slot| self.live(slot));
        slots()
            .find(|&slot| self.given(slot) == Some(name))
            .or_else(|| {
                slots().find(|&slot| {
                    self.given(slot)
                        .is_some_and(|own| own.eq_ignore_ascii_case(name))
                })
            })
    }

    /// Finds a live system by name, or says which names exist.
    ///
    /// # Errors
    /// The name is not a live system's.
    pub fn slot(&self, name: &str) -> Result<Slot, ParseError> {
        self.find(name).ok_or_else(|| {
            let known: Vec<String> = self
                .position
                .occupied_slots()
                .map(|slot| excerpt(self.name(slot)))
                .collect();
            ParseError::new(
                name,
                format!("expected a system name, one of: {}", known.join(", ")),
            )
        })
    }

    /// Whether a live system uses this name.
    pub fn in_use(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// The first default name no live system uses.
    pub fn next_default(&self) -> String {
        DEFAULT_NAMES
            .iter()
            .map(|name| name.to_string())
            .chain((22..).map(|number| format!("System{number}")))
            .find(|name| !self.in_use(name))
            .expect("an unused name always exists")
    }

    /// Forgets the names of faded systems and names unnamed live ones.
    fn sync(&mut self) {
        let count = self.position.slot_count().max(self.names.len());
        self.names.resize(count, None);
        for slot in 0..count as Slot {
            if self.position.is_home(slot) {
                if self.given(slot).is_none() {
                    self.names[slot as usize] = Some(format!("Home{slot}"));
                }
            } else if !self.position.system(slot).exists() {
                self.names[slot as usize] = None;
            }
        }
        for slot in 0..count as Slot {
            if self.position.system(slot).exists() && self.given(slot).is_none() {
                let name = self.next_default();
                self.names[slot as usize] = Some(name);
            }
        }
    }

    /// Checks and applies an action, naming a discovered system
    /// `discovered` (or by default).
    ///
    /// # Errors
    /// Why the action is illegal; the board is then unchanged.
    pub fn apply(
        &mut self,
        rules: &Rules,
        action: MultiAction,
        discovered: Option<&str>,
    ) -> Result<(), IllegalReason> {
        self.position.check(rules, action)?;
        let new_slot = match action {
            MultiAction::Plain(Action::Discover { .. }) => self.position.free_slot(),
            _ => None,
        };
        let name = new_slot.map(|_| discovered.map_or_else(|| self.next_default(), str::to_string));
        self.position.apply_unchecked(rules, action);
        if let (Some(slot), Some(name)) = (new_slot, name) {
            self.set_name(slot, name);
        }
        self.sync();
        Ok(())
    }

    /// Looks up an action's names and its capture owner.
    ///
    /// # Errors
    /// An unknown name, a discovery name in use, an unknown owner mark, or
    /// a capture whose owner is ambiguous without a mark.
    pub fn resolve(&self, step: &StepText) -> Result<(MultiAction, Option<String>), ParseError> {
        let (action, name) = resolve_with(
            &step.action,
            |name| self.slot(name),
            |name| self.in_use(name),
        )?;
        let Action::Capture { system, ship } = action else {
            return Ok((MultiAction::Plain(action), name));
        };
        let players = self.position.players();
        let mover = self.position.side_to_move();
        let owner = match step.owner {
            Some(mark) => seat_of_mark(mark, players).ok_or_else(|| {
                ParseError::new(
                    mark.to_string(),
                    format!("expected the owner's seat mark in a game of {players}"),
                )
            })?,
            None => {
                let here = self.position.system(system);
                let holders: Vec<Seat> = (0..players as Seat)
                    .filter(|&seat| {
                        seat != mover
                            && crate::rules::legality::PieceCounts::count(
                                here.ships[seat as usize],
                                ship,
                            ) > 0
                    })
                    .collect();
                match holders.as_slice() {
                    [] => (mover + 1) % players as Seat,
                    [only] => *only,
                    _ => {
                        return Err(ParseError::new(
                            ship.to_string(),
                            "expected an owner mark after the piece (such as G3E): several players have that ship there",
                        ))
                    }
                }
            }
        };
        Ok((
            MultiAction::Capture {
                system,
                ship,
                owner,
            },
            None,
        ))
    }

    /// Plays steps as one turn: each is resolved on the board as the turn
    /// has left it, checked and applied, then the turn ends. A pass after
    /// the turn's actions are used up is SDG padding and is dropped.
    /// `describe` gives step `index`'s text for errors. On error the board
    /// is unchanged.
    ///
    /// # Errors
    /// Which step failed and why, or why the turn cannot end.
    pub fn play_steps(
        &mut self,
        rules: &Rules,
        steps: &[StepText],
        describe: impl Fn(usize) -> String,
    ) -> Result<MultiTurn, TurnError> {
        let mut working = self.clone();
        let mut actions = Vec::with_capacity(steps.len());
        let mut names = Vec::with_capacity(steps.len());
        for (index, step) in steps.iter().enumerate() {
            let (action, given) = working.resolve(step).map_err(|error| TurnError::Name {
                index: index + 1,
                error,
            })?;
            if action == MultiAction::Plain(Action::Pass)
                && working.position.turn_state() == TurnState::Done
                && index > 0
            {
                continue;
            }
            let name = match action {
                MultiAction::Plain(Action::Discover { .. }) => {
                    Some(given.unwrap_or_else(|| working.next_default()))
                }
                _ => None,
            };
            working
                .apply(rules, action, name.as_deref())
                .map_err(|reason| TurnError::Illegal {
                    index: index + 1,
                    text: describe(index),
                    reason,
                })?;
            actions.push(action);
            names.push(name);
        }
        let outcome = working
            .position
            .end_turn(rules)
            .map_err(TurnError::CannotEnd)?;
        *self = working;
        Ok(MultiTurn {
            actions,
            names,
            outcome,
        })
    }

    /// Plays a turn written as text ([`parse_turn`]).
    ///
    /// # Errors
    /// The text does not parse, or the turn is illegal.
    pub fn play_turn_text(&mut self, rules: &Rules, text: &str) -> Result<MultiTurn, TurnError> {
        let steps = parse_turn(text)?;
        self.play_steps(rules, &steps, |index| format!("action {}", index + 1))
    }

    /// Plays resolved actions as one turn, naming discoveries by default.
    ///
    /// # Errors
    /// Which action failed, or why the turn cannot end.
    pub fn play_actions(
        &mut self,
        rules: &Rules,
        actions: &[MultiAction],
    ) -> Result<MultiTurn, TurnError> {
        let mut working = self.clone();
        let mut names = Vec::with_capacity(actions.len());
        for (index, &action) in actions.iter().enumerate() {
            let name = match action {
                MultiAction::Plain(Action::Discover { .. }) => Some(working.next_default()),
                _ => None,
            };
            let text = format_action(&working, action, name.as_deref(), Style::Readable);
            working
                .apply(rules, action, name.as_deref())
                .map_err(|reason| TurnError::Illegal {
                    index: index + 1,
                    text,
                    reason,
                })?;
            names.push(name);
        }
        let outcome = working
            .position
            .end_turn(rules)
            .map_err(TurnError::CannotEnd)?;
        *self = working;
        Ok(MultiTurn {
            actions: actions.to_vec(),
            names,
            outcome,
        })
    }
}

/// Writes one action as it reads on `board` (the board before it); a
/// capture carries its owner's seat mark.
pub fn format_action(
    board: &MultiBoard,
    action: MultiAction,
    discovered: Option<&str>,
    style: Style,
) -> String {
    let players = board.position.players();
    let mark = match action {
        MultiAction::Capture { owner, .. } => {
            let mark = seat_mark(owner, players);
            if style == Style::Sdg {
                mark.to_string()
            } else {
                mark.to_ascii_lowercase().to_string()
            }
        }
        MultiAction::Plain(_) => String::new(),
    };
    format_action_with(
        action.action(),
        &|slot| board.name(slot).to_string(),
        &|| discovered.map_or_else(|| board.next_default(), str::to_string),
        &mark,
        style,
    )
}

/// Writes a whole turn played from `board`, with its discoveries' names
/// (`names[i]` for action `i`; missing: the default name). In the SDG style
/// a sacrifice is padded with `Pass` per unused action.
pub fn format_turn(
    board: &MultiBoard,
    rules: &Rules,
    actions: &[MultiAction],
    names: &[Option<String>],
    style: Style,
) -> String {
    let mut working = board.clone();
    let mut parts = Vec::with_capacity(actions.len() + 3);
    for (index, &action) in actions.iter().enumerate() {
        let name = names.get(index).and_then(|name| name.as_deref());
        parts.push(format_action(&working, action, name, style));
        if working.apply(rules, action, name).is_err() {
            working.position.apply_unchecked(rules, action);
            working.sync();
        }
    }
    join_turn(parts, actions.iter().map(|action| action.action()), style)
}

fn seats_text(seats: Seats) -> String {
    seats.iter().map(|seat| seat.to_string()).collect()
}

fn parse_seats(text: &str, field: &str) -> Result<Seats, ParseError> {
    let mut seats = Seats::EMPTY;
    for c in text.chars() {
        let seat = c
            .to_digit(10)
            .filter(|&digit| (digit as usize) < 6)
            .ok_or_else(|| ParseError::new(field, "expected seat digits 0-5, such as out=02"))?;
        seats.insert(seat as Seat);
    }
    Ok(seats)
}

fn body_text(system: &MultiSystem, players: usize) -> String {
    let mut text = system.stars.to_string();
    for fleet in &system.ships[..players] {
        text.push(':');
        text.push_str(&fleet.to_string());
    }
    text
}

/// Writes a position in the multi-player notation (module docs), with names
/// when `board` is given.
pub fn write(position: &MultiPosition, board: Option<&MultiBoard>) -> String {
    let players = position.players();
    let named = |slot: Slot, text: String| match board.map(|board| board.name(slot)) {
        Some(name) if is_plain_name(name) => format!("{name}={text}"),
        _ => text,
    };
    let mut parts = Vec::new();
    for seat in 0..players as Slot {
        let home = position.system(seat);
        parts.push(if !position.created().contains(seat) {
            "-".to_string()
        } else if !home.exists() {
            "x".to_string()
        } else {
            named(seat, body_text(&home, players))
        });
    }
    let mut others: Vec<(String, Slot)> = position
        .occupied_slots()
        .filter(|&slot| !position.is_home(slot))
        .map(|slot| (body_text(&position.system(slot), players), slot))
        .collect();
    others.sort();
    parts.extend(others.into_iter().map(|(text, slot)| named(slot, text)));
    let mut text = format!(
        "players={players} {} {}",
        parts.join("/"),
        position.side_to_move()
    );
    match position.victory() {
        Victory::LastManStanding => {}
        Victory::Sinister => text.push_str(" victory=sinister"),
        Victory::GoodVersusEvil { evil } => {
            text.push_str(&format!(" victory=good-evil evil={}", seats_text(evil)));
        }
    }
    if !position.out().is_empty() {
        text.push_str(&format!(" out={}", seats_text(position.out())));
    }
    if !position.resigned().is_empty() {
        text.push_str(&format!(" resigned={}", seats_text(position.resigned())));
    }
    match position.turn_state() {
        TurnState::Start => {}
        TurnState::Done => text.push_str(" turn=d"),
        TurnState::Sacrifice { colour, remaining } => {
            text.push_str(&format!(" turn={}{remaining}", colour.letter()));
        }
    }
    match position.outcome() {
        MultiOutcome::Ongoing => {}
        MultiOutcome::Draw => text.push_str(" result=draw"),
        MultiOutcome::Win(seats) => text.push_str(&format!(" result={}", seats_text(seats))),
    }
    if position.decided_by_resignation() {
        text.push_str(" by=resignation");
    }
    text
}

/// Writes a board with its names.
pub fn write_board(board: &MultiBoard) -> String {
    write(&board.position, Some(board))
}

fn parse_body(text: &str, players: usize) -> Result<MultiSystem, ParseError> {
    let fields: Vec<&str> = text.split(':').collect();
    if fields.len() != players + 1 {
        return Err(ParseError::new(
            text,
            format!("expected stars and {players} ship lists separated by ':'"),
        ));
    }
    let mut system = MultiSystem {
        stars: Fleet::from_set(parse_pieces(fields[0])?),
        ..MultiSystem::default()
    };
    for (seat, field) in fields[1..].iter().enumerate() {
        system.ships[seat] = parse_fleet(field)?;
    }
    Ok(system)
}

/// Pieces such as `r1r1r1r1g2`: counts may exceed the two-player three.
fn parse_fleet(text: &str) -> Result<Fleet, ParseError> {
    let mut fleet = Fleet::EMPTY;
    let bytes = text.as_bytes();
    if bytes.len() % 2 != 0 || bytes.len() > 2 * 84 {
        return Err(ParseError::new(text, "expected pieces such as r1g3"));
    }
    for chunk in bytes.chunks(2) {
        let word = std::str::from_utf8(chunk).unwrap_or("?");
        let piece = crate::rules::Piece::parse(word)
            .ok_or_else(|| ParseError::new(word, "expected a piece such as g3"))?;
        if crate::rules::legality::PieceCounts::count(fleet, piece) >= 7 {
            return Err(ParseError::new(
                text,
                "expected at most 7 copies of a piece",
            ));
        }
        fleet.add(piece);
    }
    Ok(fleet)
}

fn split_name(text: &str) -> Result<(Option<&str>, &str), ParseError> {
    match text.split_once('=') {
        Some((name, body)) if is_plain_name(name) && name.len() <= MAX_NAME_CHARS => {
            Ok((Some(name), body))
        }
        Some((name, _)) => Err(ParseError::new(
            name,
            "expected a system name of letters, digits and _",
        )),
        None => Ok((None, text)),
    }
}

/// Parses the multi-player position notation (module docs).
///
/// # Errors
/// Names the offending token and what was expected.
pub fn parse(text: &str) -> Result<MultiBoard, ParseError> {
    let mut tokens = text.split_whitespace();
    let first = tokens.next().unwrap_or("");
    let players = first
        .strip_prefix("players=")
        .and_then(|value| value.parse::<usize>().ok())
        .filter(|players| (2..=6).contains(players))
        .ok_or_else(|| ParseError::new(first, "expected players=N first, N from 2 to 6"))?;
    let systems_text = tokens
        .next()
        .ok_or_else(|| ParseError::new(text, "expected the systems after players=N"))?;
    let side_text = tokens
        .next()
        .ok_or_else(|| ParseError::new(text, "expected the side to move after the systems"))?;
    let side_to_move = side_text
        .parse::<Seat>()
        .ok()
        .filter(|&seat| (seat as usize) < players)
        .ok_or_else(|| ParseError::new(side_text, "expected the seat to move"))?;
    let mut victory_word = "last";
    let mut evil = Seats::EMPTY;
    let mut out = Seats::EMPTY;
    let mut resigned = Seats::EMPTY;
    let mut turn_state = TurnState::Start;
    let mut outcome = MultiOutcome::Ongoing;
    let mut by_resignation = false;
    for field in tokens {
        let (key, value) = field.split_once('=').unwrap_or((field, ""));
        match key {
            "victory" => victory_word = value,
            "evil" => evil = parse_seats(value, field)?,
            "out" => out = parse_seats(value, field)?,
            "resigned" => resigned = parse_seats(value, field)?,
            "turn" => turn_state = parse_turn_state(value).ok_or_else(|| {
                ParseError::new(field, "expected turn=s, turn=d or turn=<colour><1-3>")
            })?,
            "result" if value == "draw" => outcome = MultiOutcome::Draw,
            "result" => outcome = MultiOutcome::Win(parse_seats(value, field)?),
            "by" if value == "resignation" => by_resignation = true,
            _ => {
                return Err(ParseError::new(
                    field,
                    "expected a field victory=, evil=, out=, resigned=, turn=, result= or by=resignation",
                ))
            }
        }
    }
    let victory = match Victory::from_word(victory_word) {
        Ok(Victory::GoodVersusEvil { .. }) => Victory::GoodVersusEvil { evil },
        Ok(victory) => victory,
        Err(_) => {
            return Err(ParseError::new(
                victory_word,
                "expected victory=last, sinister or good-evil",
            ))
        }
    };
    let parts: Vec<&str> = systems_text.split('/').collect();
    if parts.len() < players {
        return Err(ParseError::new(
            systems_text,
            format!("expected {players} home slots separated by '/'"),
        ));
    }
    let mut names: Vec<(Slot, &str)> = Vec::new();
    let mut homes = Vec::with_capacity(players);
    let mut created = Seats::EMPTY;
    for (seat, part) in parts[..players].iter().enumerate() {
        match *part {
            "-" => homes.push(None),
            "x" => {
                created.insert(seat as Seat);
                homes.push(None);
            }
            part => {
                let (name, body) = split_name(part)?;
                if let Some(name) = name {
                    names.push((seat as Slot, name));
                }
                homes.push(Some(parse_body(body, players)?));
                created.insert(seat as Seat);
            }
        }
    }
    let mut others = Vec::new();
    for (index, part) in parts[players..].iter().enumerate() {
        let (name, body) = split_name(part)?;
        if let Some(name) = name {
            names.push(((players + index) as Slot, name));
        }
        others.push(parse_body(body, players)?);
    }
    let position = MultiPosition::from_parts(MultiParts {
        players,
        victory,
        homes,
        created,
        out,
        resigned,
        others,
        side_to_move,
        turn_state,
        outcome,
        decided_by_resignation: by_resignation,
    })
    .map_err(|error| ParseError::new(systems_text, error.to_string()))?;
    let mut board = MultiBoard {
        position,
        names: Vec::new(),
    };
    for (index, (slot, name)) in names.iter().enumerate() {
        if names[..index]
            .iter()
            .any(|(_, other)| other.eq_ignore_ascii_case(name))
        {
            return Err(ParseError::new(
                *name,
                "expected each system name only once",
            ));
        }
        board.set_name(*slot, *name);
    }
    board.sync();
    Ok(board)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_marks_are_read_from_the_text() {
        assert_eq!(owner_mark("Attack G3E Gregf"), Some('E'));
        assert_eq!(owner_mark("capture.g1w.Home0"), Some('w'));
        assert_eq!(owner_mark("Attack G3 Gregf"), None);
        assert_eq!(owner_mark("Build G3E Gregf"), None);
        assert_eq!(seat_of_mark('e', 4), Some(1));
        assert_eq!(seat_of_mark('W', 3), None);
        assert_eq!(seat_of_mark('S', 2), Some(1));
    }

    #[test]
    fn a_three_player_position_round_trips() {
        let text = "players=3 A=r1b3:g3::/B=y2b1::g3:/- 2 victory=sinister";
        let board = parse(text).unwrap();
        assert_eq!(board.position.players(), 3);
        assert_eq!(board.position.bank().len(), 48 - 6);
        let again = parse(&write_board(&board)).unwrap();
        assert_eq!(again, board);
        assert_eq!(again.position.hash(), board.position.hash());
        assert!(parse("players=3 r1b3:g3:/- 0").is_err());
        assert!(parse("players=7 - 0").is_err());
        // The README's example.
        let example = "players=3 A=r1y3:r3g3::/B=g2b1::g1:/- 2 victory=sinister";
        assert_eq!(write_board(&parse(example).unwrap()), example);
    }
}
