//! What the multi-player page is sent: the table as JSON, with the secret
//! alignments of Good versus Evil kept on the server.
//!
//! While a person sits at a Good-versus-Evil table and the game goes on,
//! a seat's alignment is sent only when the rules have revealed it: the
//! person's own, and those of players out of the game. The board's text
//! carries only the revealed Evil seats
//! ([`crate::tools::match_runner::multi::engine_view`]), the victory
//! condition is sent by its word alone, and the turn list names no
//! alignment, so no field of the reply holds the others' alignments. Once
//! the game is over, or when no person sits at the table (a watched game,
//! a reviewed record), every alignment is shown.

use serde::Serialize;

use super::table::{SeatKind, Table, TableMode, MAX_TURNS};
use crate::notation::multi::{format_action, seat_mark, MultiBoard, StepText};
use crate::notation::turn::Style;
use crate::rules::multi::{MultiAction, MultiActionList, MultiOutcome, Seat, Victory};
use crate::rules::Action;
use crate::tools::gui::clicks::click_paths;
use crate::tools::match_runner::multi::engine_view;

/// One seat as the page shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatReply {
    /// The seat number (0 moves first).
    pub seat: usize,
    /// Its mark in turns and records: `N`, `E`, `S`, `W`, `5`, `6`.
    pub mark: String,
    /// Its name (its home's name).
    pub name: String,
    /// `person`, `engine` or `record`.
    pub kind: &'static str,
    /// The engine's command line, for an engine seat.
    pub engine: Option<String>,
    /// Whether it is still in the game.
    pub in_game: bool,
    /// Whether it resigned (or forfeited).
    pub resigned: bool,
    /// Its Sinister target: the next player in the game.
    pub target: Option<usize>,
    /// `good` or `evil` where the page may know it; else `null`.
    pub alignment: Option<&'static str>,
    /// Whether an engine is thinking for it now.
    pub thinking: bool,
    /// Why its engine was dropped (it exited, stopped answering or played
    /// an illegal turn); `null` otherwise.
    pub dropped: Option<String>,
}

/// One system on the board.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemReply {
    /// Its name.
    pub name: String,
    /// The seat whose home it is; `null` for a colony.
    pub home: Option<usize>,
    /// Whether it is a home that was destroyed.
    pub destroyed: bool,
    /// Its stars, as pieces (`b2`).
    pub stars: Vec<String>,
    /// Each seat's ships there, as pieces, by seat.
    pub ships: Vec<Vec<String>>,
}

/// One turn of the list.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnReply {
    /// 1-based.
    pub number: usize,
    /// Who played it.
    pub seat: usize,
    /// In SDG form.
    pub text: String,
}

/// The table, as `GET /api/multi/state` answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MultiStateReply {
    /// Counts changes (`?since=` waits for a larger one).
    pub version: u64,
    /// `game` or `review`.
    pub mode: &'static str,
    /// Players at the table.
    pub players: usize,
    /// `last`, `sinister` or `good-evil`.
    pub victory: &'static str,
    /// The seats in turn order.
    pub seats: Vec<SeatReply>,
    /// The systems of the shown board: the homes in seat order, then the
    /// colonies.
    pub systems: Vec<SystemReply>,
    /// The bank: each piece with the count left.
    pub bank: Vec<(String, u32)>,
    /// The seat to move on the shown board.
    pub to_move: usize,
    /// Whether the seat to move still creates its home.
    pub setup: bool,
    /// Whether a person is to move on the board now (and may play).
    pub your_turn: bool,
    /// The shown board's text (only revealed Evil seats).
    pub position: String,
    /// The turns so far.
    pub turns: Vec<TurnReply>,
    /// The shown turn: the board before turn `shown` (0-based); `turns`'
    /// length shows the board now.
    pub shown: usize,
    /// The result: `null` while the game goes on.
    pub result: Option<String>,
    /// The last message.
    pub message: String,
    /// Whether it is an error.
    pub error: bool,
}

/// Whether the page may be told every alignment.
fn alignments_open(table: &Table) -> bool {
    table.mode == TableMode::Review || table.people().is_empty() || table.finished()
}

impl MultiStateReply {
    /// The reply for `table`.
    pub fn new(table: &Table) -> MultiStateReply {
        let board = table.shown_board();
        let position = &board.position;
        let players = position.players();
        let now = &table.board.position;
        let open = alignments_open(table);
        let evil = match now.victory() {
            Victory::GoodVersusEvil { evil } => Some(evil),
            _ => None,
        };
        let seats = table
            .seats
            .iter()
            .enumerate()
            .map(|(index, seat)| {
                let number = index as Seat;
                let known = open || seat.kind == SeatKind::Person || now.out().contains(number);
                let in_game = position.in_game().contains(number);
                SeatReply {
                    seat: index,
                    mark: seat_mark(number, players).to_string(),
                    name: seat.name.clone(),
                    kind: match (table.mode, seat.kind) {
                        (TableMode::Review, _) => "record",
                        (_, SeatKind::Person) => "person",
                        (_, SeatKind::Engine(_)) => "engine",
                    },
                    engine: match seat.kind {
                        SeatKind::Engine(engine) if table.mode == TableMode::Game => {
                            table.engines.get(engine).map(|command| command.text())
                        }
                        _ => None,
                    },
                    in_game,
                    resigned: position.resigned().contains(number),
                    target: (in_game && position.victory() == Victory::Sinister)
                        .then(|| position.next_in_game(number))
                        .flatten()
                        .filter(|&target| target != number)
                        .map(usize::from),
                    alignment: evil.filter(|_| known).map(|evil| {
                        if evil.contains(number) {
                            "evil"
                        } else {
                            "good"
                        }
                    }),
                    thinking: seat.searching.is_some(),
                    dropped: seat.dropped.clone(),
                }
            })
            .collect();
        let mover = position.side_to_move();
        let live = table.shown.is_none_or(|index| index >= table.turns.len());
        MultiStateReply {
            version: table.version,
            mode: match table.mode {
                TableMode::Game => "game",
                TableMode::Review => "review",
            },
            players,
            victory: position.victory().word(),
            seats,
            systems: systems(board),
            bank: bank(board),
            to_move: mover as usize,
            setup: !position.created().contains(mover),
            your_turn: live
                && table.mode == TableMode::Game
                && !table.finished()
                && table
                    .seats
                    .get(mover as usize)
                    .is_some_and(|seat| seat.kind == SeatKind::Person),
            position: engine_view(board),
            turns: table
                .turns
                .iter()
                .enumerate()
                .map(|(index, turn)| TurnReply {
                    number: index + 1,
                    seat: turn.seat as usize,
                    text: turn.text.clone(),
                })
                .collect(),
            shown: table
                .shown
                .unwrap_or(table.turns.len())
                .min(table.turns.len()),
            result: result(table),
            message: table.message.clone(),
            error: table.error,
        }
    }
}

/// The result in words, once the game is over.
fn result(table: &Table) -> Option<String> {
    let names = |seats: crate::rules::multi::Seats| -> Vec<String> {
        seats
            .iter()
            .filter_map(|seat| table.seats.get(seat as usize))
            .map(|seat| seat.name.clone())
            .collect()
    };
    match table.board.position.outcome() {
        MultiOutcome::Win(winners) => Some(format!("{} won", names(winners).join(" and "))),
        MultiOutcome::Draw => Some("draw: everyone left was eliminated together".to_string()),
        MultiOutcome::Ongoing if table.turns.len() >= MAX_TURNS => {
            Some(format!("unfinished after {MAX_TURNS} turns"))
        }
        MultiOutcome::Ongoing => None,
    }
}

/// The bank of `board`: each piece with the count left.
fn bank(board: &MultiBoard) -> Vec<(String, u32)> {
    let position = &board.position;
    position
        .bank()
        .types()
        .map(|piece| {
            let count = crate::rules::legality::PieceCounts::count(position.bank(), piece);
            (piece.to_string(), count)
        })
        .collect()
}

/// The systems of `board`, homes first in seat order.
fn systems(board: &MultiBoard) -> Vec<SystemReply> {
    let position = &board.position;
    let players = position.players();
    let pieces = |fleet: crate::rules::multi::Fleet| -> Vec<String> {
        fleet.copies().map(|piece| piece.to_string()).collect()
    };
    let homes = (0..players as u8).map(|slot| (slot, true));
    let colonies = position
        .occupied_slots()
        .filter(|&slot| !position.is_home(slot))
        .map(|slot| (slot, false));
    homes
        .chain(colonies)
        .map(|(slot, home)| {
            let system = position.system(slot);
            SystemReply {
                name: board.name(slot).to_string(),
                home: home.then_some(slot as usize),
                destroyed: home && !system.exists() && position.created().contains(slot as Seat),
                stars: pieces(system.stars),
                ships: system.ships[..players]
                    .iter()
                    .map(|&fleet| pieces(fleet))
                    .collect(),
            }
        })
        .collect()
}

/// One action the person may click next.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChoiceReply {
    /// The protocol token, to send back.
    pub token: String,
    /// In SDG words, for the button.
    pub text: String,
    /// The click sequences on the board that choose it (see
    /// [`click_paths`]).
    pub paths: Vec<Vec<String>>,
}

/// `POST /api/multi/choices`' answer: what may follow the actions so far.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChoicesReply {
    /// The legal next actions: in the setup turn, every home the bank
    /// allows (chosen by clicking its stars and its ship in the bank, or
    /// with the page's home chooser, not listed as buttons).
    pub actions: Vec<ChoiceReply>,
    /// Whether the turn may end after the actions so far.
    pub can_end: bool,
    /// Whether this is the mover's setup turn.
    pub setup: bool,
    /// The systems after the actions so far, as the state sends them, so
    /// that the board shows the turn being built.
    pub systems: Vec<SystemReply>,
    /// The bank after the actions so far.
    pub bank: Vec<(String, u32)>,
}

/// The choices after `actions` (tokens) on the board now, for the person
/// to move.
///
/// # Errors
/// No person is to move, or an action does not parse or is illegal.
pub fn choices(table: &Table, actions: &[String]) -> Result<ChoicesReply, String> {
    let reply = MultiStateReply::new(table);
    if !reply.your_turn {
        return Err("it is not a person's turn".to_string());
    }
    let mut working = table.board.clone();
    for (index, token) in actions.iter().enumerate() {
        let step =
            StepText::parse(token).map_err(|error| format!("action {}: {error}", index + 1))?;
        let (action, name) = working
            .resolve(&step)
            .map_err(|error| format!("action {}: {error}", index + 1))?;
        working
            .apply(&table.rules, action, name.as_deref())
            .map_err(|reason| format!("action {}: {reason}", index + 1))?;
    }
    let position = &working.position;
    let setup = !position.created().contains(position.side_to_move());
    let mut list = MultiActionList::new();
    position.legal_actions(&table.rules, &mut list);
    // An empty turn is a pass, which has its own button.
    let can_end = !actions.is_empty() && position.clone().end_turn(&table.rules).is_ok();
    Ok(ChoicesReply {
        actions: list
            .iter()
            .filter(|action| {
                // A pass is its own button on the page.
                !matches!(action, MultiAction::Plain(Action::Pass))
            })
            .map(|&action| ChoiceReply {
                token: format_action(&working, action, None, Style::Token),
                text: format_action(&working, action, None, Style::Sdg),
                paths: multi_click_paths(&working, action),
            })
            .collect(),
        can_end,
        setup,
        systems: systems(&working),
        bank: bank(&working),
    })
}

/// The sequences of clicks on the page that choose `action`
/// ([`click_paths`] of both pages, a capture naming the owner of the ship
/// it takes). A plain capture, which names no owner, is never legal here
/// and has none.
fn multi_click_paths(board: &MultiBoard, action: MultiAction) -> Vec<Vec<String>> {
    let mover = board.position.side_to_move() as usize;
    let owner = match action {
        MultiAction::Capture { owner, .. } => owner as usize,
        MultiAction::Plain(Action::Capture { .. }) => return Vec::new(),
        MultiAction::Plain(_) => mover,
    };
    click_paths(action.action(), mover, owner, |slot| {
        board.name(slot).to_string()
    })
}
